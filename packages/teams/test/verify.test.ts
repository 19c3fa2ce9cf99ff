import { type InboundRequest, MalformedPayloadError, VerificationError } from "@resident/core";
import { FakeServer } from "@resident/testkit";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TeamsAdapter } from "../src/index.ts";
import { appId, appPassword, endpointsOf, startTeams, type TeamsHarness, teamsWorkspace } from "./harness.ts";

const tokenOf = (request: InboundRequest) => String(request.headers.authorization).replace("Bearer ", "");

describe("Teams verify: botbuilder's channel authentication against the fake Bot Framework", () => {
  let t: TeamsHarness;
  beforeAll(async () => {
    t = await startTeams({ keys: { main: ["msteams", "webchat"], "webchat-only": ["webchat"] } });
  });
  afterAll(() => t?.bf.close());

  const rejects = async (request: InboundRequest, reason: RegExp) => {
    const error = await t.adapter.verify(request, t.workspace, Date.now()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VerificationError);
    expect((error as Error).message).toMatch(reason);
    const token = tokenOf(request);
    if (token) expect((error as Error).message).not.toContain(token);
  };

  it("accepts a correctly signed activity, which then normalizes", async () => {
    const request = await t.bf.request(t.message("hello"));
    await expect(t.adapter.verify(request, t.workspace, Date.now())).resolves.toBeUndefined();
    expect(t.adapter.normalize(request, t.workspace, Date.now())).toMatchObject({
      kind: "message",
      event: { text: "hello" },
    });
  });

  it("rejects a delivery without a token", async () => {
    const { headers, ...request } = await t.bf.request(t.message("hello"));
    await rejects({ ...request, headers: { "content-type": headers["content-type"] } }, /Authorization/);
  });

  it("rejects an expired token", async () => {
    await rejects(await t.bf.request(t.message("hello"), { expiresIn: -600 }), /expired/);
  });

  it("rejects a token for another app", async () => {
    await rejects(await t.bf.request(t.message("hello"), { appId: "99999999-0000-0000-0000-000000000000" }), /AppId/);
  });

  it("rejects a token from another issuer", async () => {
    await rejects(await t.bf.request(t.message("hello"), { issuer: "https://api.botframework.com" }), /identity/);
  });

  it("rejects a token whose serviceurl claim is not the activity's serviceUrl", async () => {
    const request = await t.bf.request(t.message("hello"), { serviceUrl: "https://smba.trafficmanager.net/amer/" });
    await rejects(request, /ServiceUrl/);
  });

  it("rejects a token signed by a key that does not endorse msteams", async () => {
    await rejects(await t.bf.request(t.message("hello"), { kid: "webchat-only" }), /endorsement/);
  });

  it("rejects a token signed by a key the metadata does not publish", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    await rejects(await t.bf.request(t.message("hello"), { key: privateKey, kid: "main" }), /signature/);
  });

  it("rejects a garbled token", async () => {
    const request = await t.bf.request(t.message("hello"));
    await rejects({ ...request, headers: { authorization: "Bearer not-a-jwt" } }, /identity/);
  });

  it("admits only Teams' channel, even with a key that endorses the other one", async () => {
    await rejects(await t.bf.request({ ...t.message("hello"), channelId: "webchat" }), /not a Teams activity/);
  });

  it("answers a malformed body under a token with MalformedPayloadError", async () => {
    const request = await t.bf.request(t.message("hello"));
    const garbled = { ...request, rawBody: Buffer.from("{not json") };
    await expect(t.adapter.verify(garbled, t.workspace, Date.now())).rejects.toBeInstanceOf(MalformedPayloadError);
  });

  it("keeps each workspace to its own bot: a token for one app is refused at another's workspace", async () => {
    const otherAppId = "77777777-0000-0000-0000-000000000000";
    t.bf.registerApp(otherAppId, "other-password");
    const other = await teamsWorkspace(t.adapter, { appId: otherAppId, appPassword: "other-password" }, "ws-other");
    const toOther = await t.bf.request(t.message("hello", { appId: otherAppId }));
    await expect(t.adapter.verify(toOther, other, Date.now())).resolves.toBeUndefined();
    await rejects(toOther, /AppId/);
  });

  it("verifies a SingleTenant app's workspace the same way", async () => {
    const tenantAppId = "55555555-0000-0000-0000-000000000000";
    t.bf.registerApp(tenantAppId, "tenant-password", "contoso.onmicrosoft.com");
    const workspace = await teamsWorkspace(
      t.adapter,
      {
        appId: tenantAppId,
        appPassword: "tenant-password",
        appType: "SingleTenant",
        appTenantId: "contoso.onmicrosoft.com",
      },
      "ws-single",
    );
    const request = await t.bf.request(t.message("hello", { appId: tenantAppId }));
    await expect(t.adapter.verify(request, workspace, Date.now())).resolves.toBeUndefined();
  });
});

describe("Teams verify when the signing keys cannot be loaded", () => {
  it("fails with an error the server turns into a 5xx, not a 401, so Teams retries", async () => {
    const t = await startTeams();
    const closed = await new FakeServer({}).start();
    await closed.close();
    const adapter = new TeamsAdapter({ ...endpointsOf(t.bf), openIdMetadataUrl: `${closed.url}/metadata` });
    const workspace = { ...t.workspace, credentials: { appId, appPassword } };
    const error = await adapter.verify(await t.bf.request(t.message("hello")), workspace, Date.now()).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(VerificationError);
    expect(error.message).toMatch(/signing keys/);
    await t.bf.close();
  });
});
