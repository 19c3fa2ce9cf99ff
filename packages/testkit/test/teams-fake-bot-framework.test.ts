import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botFrameworkScope, FakeBotFramework, teamsMessage } from "../src/teams/index.ts";

const appId = "00000000-1111-2222-3333-444444444444";

describe("FakeBotFramework", () => {
  let bf: FakeBotFramework;
  beforeAll(async () => {
    bf = await FakeBotFramework.start({ keys: { main: ["msteams", "webchat"], other: ["webchat"] } });
    bf.registerApp(appId, "secret").registerApp("single-app", "single-secret", "contoso");
  });
  afterAll(() => bf?.close());

  const token = async (form: Record<string, string>, authority = "botframework.com") => {
    const response = await fetch(`${bf.loginUrl}/${authority}/oauth2/v2.0/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: botFrameworkScope, ...form }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = (path: string, accessToken: string, body: unknown) =>
    fetch(`${bf.serviceUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("publishes OpenID metadata whose JWKS carries endorsed RSA keys", async () => {
    const metadata = (await (await fetch(bf.openIdMetadataUrl)).json()) as Record<string, string>;
    expect(metadata.issuer).toBe(bf.issuer);
    const jwks = (await (await fetch(String(metadata.jwks_uri))).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([
      expect.objectContaining({ kty: "RSA", kid: "main", e: "AQAB", endorsements: ["msteams", "webchat"] }),
      expect.objectContaining({ kty: "RSA", kid: "other", endorsements: ["webchat"] }),
    ]);
  });

  it("signs channel JWTs that verify against its JWKS, with the channel's claims", async () => {
    const jwt = await bf.signChannelJwt({ appId, serviceUrl: bf.serviceUrl });
    const keys = createRemoteJWKSet(new URL(`${bf.url}/v1/.well-known/keys`));
    const { payload, protectedHeader } = await jwtVerify(jwt, keys, { issuer: bf.issuer, audience: appId });
    expect(payload.serviceurl).toBe(bf.serviceUrl);
    expect(protectedHeader).toMatchObject({ alg: "RS256", kid: "main" });
    const expired = await bf.signChannelJwt({ appId, serviceUrl: bf.serviceUrl, expiresIn: -600 });
    await expect(jwtVerify(expired, keys)).rejects.toThrow(/exp/);
  });

  it("issues bot tokens for registered apps and refuses the rest in Microsoft's words", async () => {
    const good = await token({ client_id: appId, client_secret: "secret" });
    expect(good).toMatchObject({ status: 200, body: { token_type: "Bearer", access_token: expect.any(String) } });
    const wrongSecret = await token({ client_id: appId, client_secret: "nope" });
    expect(wrongSecret).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect(String(wrongSecret.body.error_description)).not.toContain("nope");
    expect(await token({ client_id: "single-app", client_secret: "single-secret" })).toMatchObject({ status: 400 });
    expect(await token({ client_id: "single-app", client_secret: "single-secret" }, "contoso")).toMatchObject({
      status: 200,
    });
  });

  it("records the activities its connector accepts under a bot token, and refuses others", async () => {
    const { body } = await token({ client_id: appId, client_secret: "secret" });
    const conversationId = "19:abc@thread.tacv2;messageid=1700000000000";
    const path = `v3/conversations/${encodeURIComponent(conversationId)}/activities/1700000000000`;
    expect((await post(path, "forged", { type: "message", text: "x" })).status).toBe(401);
    const accepted = await post(path, String(body.access_token), { type: "message", text: "hi" });
    expect(accepted.status).toBe(201);
    const { id } = (await accepted.json()) as { id: string };
    expect(bf.activities.at(-1)).toEqual({
      conversationId,
      replyToId: "1700000000000",
      appId,
      id,
      activity: { type: "message", text: "hi" },
      at: expect.any(Number),
      updates: 0,
    });
  });

  it("throttles, fails and delays replies to one target on demand", async () => {
    const { body } = await token({ client_id: appId, client_secret: "secret" });
    const target = { conversationId: "a:personal", activityId: "17" };
    const path = `v3/conversations/a%3Apersonal/activities/17`;
    bf.rateLimit(target, { retryAfterSeconds: 3 }).fail(target, 503);
    const limited = await post(path, String(body.access_token), { text: "1" });
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "3"]);
    expect((await post(path, String(body.access_token), { text: "2" })).status).toBe(503);
    const before = bf.activities.length;
    bf.acceptThenTimeOut(target, 5_000);
    const late = post(path, String(body.access_token), { text: "3" }).catch(() => "closed");
    await expect.poll(() => bf.activities.length).toBe(before + 1);
    expect(bf.server.callsTo(bf.replyRoute(target))).toHaveLength(3);
    bf.server.clearFaults();
    void late;
  });

  it("builds Teams message activities shaped like the fixtures", () => {
    const activity = teamsMessage({ appId, serviceUrl: bf.serviceUrl, text: "hello", id: "1712345678901" });
    expect(activity).toMatchObject({
      type: "message",
      channelId: "msteams",
      conversation: { conversationType: "channel", id: "19:channel0001@thread.tacv2;messageid=1712345678901" },
      recipient: { id: `28:${appId}` },
      text: "<at>Resident</at> hello",
      entities: [{ type: "mention", mentioned: { id: `28:${appId}` }, text: "<at>Resident</at>" }, expect.anything()],
    });
  });
});
