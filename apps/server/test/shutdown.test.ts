import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInstance } from "@resident/testkit/processes";
import { expect, it } from "vitest";
import { startInProcessService } from "./support/in-process-service.ts";

const body = JSON.stringify({ type: "event_callback", event_id: "Ev1", padding: "x".repeat(40) });

/** A webhook request of which only the head and the body's first byte are sent: it stays in flight. */
async function halfSent(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const client = connect(Number(port), hostname);
  await once(client, "connect");
  client.on("error", () => {}); // a cut may reach the client as a reset; the test looks for "close"
  client.write(
    `POST /slack/events/T0 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
  );
  client.write(body.slice(0, 1));
  return client;
}

it("on close, answers a request still arriving, and cuts one whose client stopped once the drain is over", async () => {
  const service = await startInProcessService();
  const [finishing, stalled] = await Promise.all([halfSent(service.url), halfSent(service.url)]);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // both heads read: both requests in flight
  const answer = once(finishing, "data");
  const stalledClosed = once(stalled, "close");
  const closed = service.close();

  await new Promise((resolve) => setTimeout(resolve, 300));
  finishing.write(body.slice(1));
  expect(String((await answer)[0])).toMatch(/^HTTP\/1\.1 404 /); // T0 is no workspace

  await closed;
  await stalledClosed;
  expect(stalled.destroyed).toBe(true);
  finishing.destroy();
}, 30_000);

it("exits 0 on SIGTERM with a client stalled mid-request: the drain cuts it well inside the 25 s grace", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "resident-shutdown-"));
  try {
    const instance = await startInstance("stalled-client", { DATA_DIR: dataDir });
    const stalled = await halfSent(instance.url);
    const cut = once(stalled, "close");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Past the grace the process exits 1, its jobs left to their locks; the stalled request alone must not take it there.
    expect(await instance.process.stop("SIGTERM", 60_000), instance.process.log()).toBe(0);
    await cut;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
