import { type RunningNginx, startNginx } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

const portOf = (url: string) => Number(new URL(url).port);
const statusOf = async (url: string) => (await fetch(url)).status;

describe("through nginx: readiness and metrics stay inside", () => {
  let internal: InProcessService;
  let plain: InProcessService;
  let nginx: RunningNginx;
  let plainNginx: RunningNginx;
  beforeAll(async () => {
    [internal, plain] = await Promise.all([
      startInProcessService({ METRICS_PORT: "0", TRUSTED_PROXIES: "127.0.0.1" }),
      startInProcessService({ TRUSTED_PROXIES: "127.0.0.1" }),
    ]);
    [nginx, plainNginx] = await Promise.all([startNginx([portOf(internal.url)]), startNginx([portOf(plain.url)])]);
  });
  afterAll(async () => {
    await Promise.all([nginx?.stop(), plainNginx?.stop()]);
    await Promise.all([internal?.close(), plain?.close()]);
  });

  it("serves /metrics and /readyz on METRICS_PORT only, and nginx passes neither", async () => {
    const metricsUrl = internal.service.metricsUrl as string;
    expect(metricsUrl).toBeDefined();
    const metrics = await fetch(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("# TYPE");
    expect(await statusOf(`${metricsUrl}/readyz`)).toBe(200);
    const outside = {
      metrics: await statusOf(`${nginx.url}/metrics`),
      readyz: await statusOf(`${nginx.url}/readyz`),
      publicPortMetrics: await statusOf(`${internal.url}/metrics`),
      healthz: await statusOf(`${nginx.url}/healthz`),
    };
    console.log(`[internal-port] ${JSON.stringify(outside)}`);
    expect(outside).toEqual({ metrics: 404, readyz: 404, publicPortMetrics: 404, healthz: 200 });
  });

  it("keeps them from the outside through nginx even when the instance serves them on its public port", async () => {
    expect(await statusOf(`${plain.url}/metrics`)).toBe(200);
    for (const path of ["/metrics", "/readyz", "/metrics/", "/readyz?x=1"]) {
      expect({ path, status: await statusOf(`${plainNginx.url}${path}`) }).toEqual({ path, status: 404 });
    }
  });

  it("logs the address nginx saw, not one a client wrote, and no query string", async () => {
    const secret = "query-secret-0123456789";
    await fetch(`${nginx.url}/admin/api/me?token=${secret}`, { headers: { "x-forwarded-for": "203.0.113.66" } });
    const logged = internal.logs.filter((line) => line.includes("/admin/api/me"));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join("\n")).not.toContain(secret);
    expect(logged.join("\n")).not.toContain("203.0.113.66");
    expect(logged.some((line) => line.includes('"remoteAddress":"127.0.0.1"'))).toBe(true);
  });
});

describe("a port that is taken", () => {
  let holder: InProcessService;
  beforeAll(async () => {
    holder = await startInProcessService();
  });
  afterAll(() => holder?.close());

  it("fails the start with EADDRINUSE, the public port or the metrics port alike, and a start after it still works", async () => {
    const taken = String(portOf(holder.url));
    for (const env of [{ PORT: taken }, { METRICS_PORT: taken }] as Record<string, string>[]) {
      await expect(startInProcessService(env)).rejects.toMatchObject({ code: "EADDRINUSE" });
    }
    const next = await startInProcessService();
    try {
      expect(await statusOf(`${next.url}/healthz`)).toBe(200);
    } finally {
      await next.close();
    }
  });
});
