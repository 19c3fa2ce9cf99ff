import { InvalidCredentialsError } from "@resident/core";
import { FakeServer } from "@resident/testkit";
import { FakeBotFramework } from "@resident/testkit/teams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TeamsAdapter, teamsCredentialsSchema } from "../src/index.ts";
import { appId, appPassword, endpointsOf } from "./harness.ts";

describe("Teams connect: the bot's credentials against the login endpoint", () => {
  let bf: FakeBotFramework;
  let adapter: TeamsAdapter;
  beforeAll(async () => {
    bf = await FakeBotFramework.start();
    bf.registerApp(appId, appPassword).registerApp("single-tenant-app", "tenant-secret", "contoso.onmicrosoft.com");
    adapter = new TeamsAdapter(endpointsOf(bf));
  });
  afterAll(() => bf?.close());

  it("learns the bot's identity from working credentials", async () => {
    await expect(adapter.connect({ appId, appPassword })).resolves.toEqual({ appId, botId: `28:${appId}` });
  });

  it("refuses a wrong password with the platform's words, never the password", async () => {
    const wrong = "wrong-password-value";
    const error = await adapter.connect({ appId, appPassword: wrong }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidCredentialsError);
    expect((error as Error).message).toMatch(/AADSTS7000215/);
    expect((error as Error).message).not.toContain(wrong);
  });

  it("asks a SingleTenant app's own tenant for its token", async () => {
    const credentials = { appId: "single-tenant-app", appPassword: "tenant-secret" };
    await expect(
      adapter.connect({ ...credentials, appType: "SingleTenant", appTenantId: "contoso.onmicrosoft.com" }),
    ).resolves.toMatchObject({ appId: "single-tenant-app" });
    const asMultiTenant = await adapter.connect(credentials).catch((e: unknown) => e);
    expect(asMultiTenant).toBeInstanceOf(InvalidCredentialsError);
    expect((asMultiTenant as Error).message).toMatch(/AADSTS700016/);
  });

  it("keeps the client secret on the login host's token path, whatever appTenantId holds", async () => {
    const login = await new FakeServer({}).start();
    try {
      const traversal = { appId, appPassword, appType: "SingleTenant" as const, appTenantId: "../../evil-path?x=" };
      await new TeamsAdapter({ loginUrl: `${login.url}/login` }).connect(traversal).catch(() => undefined);
      expect(login.calls.map((call) => call.path)).toEqual(["/login/..%2F..%2Fevil-path%3Fx%3D/oauth2/v2.0/token"]);
      expect(login.calls.every((call) => call.query.size === 0)).toBe(true);
    } finally {
      await login.close();
    }
  });

  it("refuses a login endpoint's redirect instead of following it with the secret", async () => {
    const elsewhere = await new FakeServer({
      "POST /token": () => ({ status: 200, body: { access_token: "x" } }),
    }).start();
    const login = await new FakeServer({
      "POST /:authority/oauth2/v2.0/token": () => ({ status: 307, headers: { location: `${elsewhere.url}/token` } }),
    }).start();
    try {
      const error = await new TeamsAdapter({ loginUrl: login.url }).connect({ appId, appPassword }).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(login.calls).toHaveLength(1);
      expect(elsewhere.calls).toEqual([]);
    } finally {
      await Promise.all([login.close(), elsewhere.close()]);
    }
  });

  it("tells an unreachable login endpoint from refused credentials", async () => {
    const closed = await new FakeServer({}).start();
    await closed.close();
    const error = await new TeamsAdapter({ loginUrl: closed.url }).connect({ appId, appPassword }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(InvalidCredentialsError);
  });
});

describe("Teams credentials schema", () => {
  it("accepts MultiTenant and SingleTenant registrations", () => {
    expect(teamsCredentialsSchema.safeParse({ appId, appPassword }).success).toBe(true);
    const single = { appId, appPassword, appType: "SingleTenant", appTenantId: "contoso.onmicrosoft.com" };
    expect(teamsCredentialsSchema.safeParse(single).success).toBe(true);
  });

  it("takes appTenantId only as a tenant GUID or a domain", () => {
    const single = (appTenantId: string) =>
      teamsCredentialsSchema.safeParse({ appId, appPassword, appType: "SingleTenant", appTenantId }).success;
    expect(single("72f988bf-86f1-41af-91ab-2d7cd011db47")).toBe(true);
    expect(single("contoso.onmicrosoft.com")).toBe(true);
    for (const bad of ["../../evil-path?x=", "contoso", "a/b.com", "x.com#frag", "host.com:443", "%2e%2e.com"]) {
      expect({ bad, accepted: single(bad) }).toEqual({ bad, accepted: false });
    }
  });

  it("requires the tenant of a SingleTenant app, and nothing unknown", () => {
    expect(teamsCredentialsSchema.safeParse({ appId, appPassword, appType: "SingleTenant" }).success).toBe(false);
    expect(teamsCredentialsSchema.safeParse({ appId, appPassword, botToken: "x" }).success).toBe(false);
    expect(teamsCredentialsSchema.safeParse({ appId: "", appPassword }).success).toBe(false);
  });
});
