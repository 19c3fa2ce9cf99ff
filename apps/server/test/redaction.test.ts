import { FakeServer } from "@resident/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/** A login endpoint that refuses every client and echoes the form it was sent, as some misconfigured ones do. */
let echoingLogin: FakeServer;
let s: InProcessService;
beforeAll(async () => {
  echoingLogin = await new FakeServer({
    "POST /:authority/oauth2/v2.0/token": (call) => ({
      status: 401,
      body: { error: "invalid_client", error_description: `AADSTS7000215: bad secret in ${call.rawBody}` },
    }),
  }).start();
  s = await startInProcessService({ TEAMS_LOGIN_URL: echoingLogin.url });
});
afterAll(async () => {
  await s?.close();
  await echoingLogin?.close();
});

describe("a credential echoed back encoded", () => {
  it("is cut out of the 422 an admin reads, and out of the log", async () => {
    const appPassword = "p/a+s&s=w0rd~with spaces";
    const tenant = await s.operator.tenantWithAdmin("echo");
    const refused = await tenant.admin.request<{ error: string }>("POST", `/tenants/${tenant.tenantId}/workspaces`, {
      platform: "teams",
      name: "echoed",
      credentials: { appId: "00000000-0000-0000-0000-000000000001", appPassword },
    });
    expect(refused.status).toBe(422);
    expect(echoingLogin.calls[0]?.rawBody).toContain(new URLSearchParams({ appPassword }).toString().slice(12));
    console.log(`[redaction] 422 error: ${refused.body.error}`);
    expect(refused.body.error).toContain("AADSTS7000215");
    expect(refused.body.error).toContain("[redacted]");
    const encodings = [
      appPassword,
      encodeURIComponent(appPassword),
      new URLSearchParams({ x: appPassword }).toString().slice(2),
    ];
    for (const encoded of encodings) {
      expect(refused.body.error).not.toContain(encoded);
      expect(s.logs.join("\n")).not.toContain(encoded);
    }
  });
});
