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
    bf.registerApp(appId, appPassword).registerApp("single-tenant-app", "tenant-secret", "contoso-tenant");
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
      adapter.connect({ ...credentials, appType: "SingleTenant", appTenantId: "contoso-tenant" }),
    ).resolves.toMatchObject({ appId: "single-tenant-app" });
    const asMultiTenant = await adapter.connect(credentials).catch((e: unknown) => e);
    expect(asMultiTenant).toBeInstanceOf(InvalidCredentialsError);
    expect((asMultiTenant as Error).message).toMatch(/AADSTS700016/);
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
    const single = { appId, appPassword, appType: "SingleTenant", appTenantId: "contoso-tenant" };
    expect(teamsCredentialsSchema.safeParse(single).success).toBe(true);
  });

  it("requires the tenant of a SingleTenant app, and nothing unknown", () => {
    expect(teamsCredentialsSchema.safeParse({ appId, appPassword, appType: "SingleTenant" }).success).toBe(false);
    expect(teamsCredentialsSchema.safeParse({ appId, appPassword, botToken: "x" }).success).toBe(false);
    expect(teamsCredentialsSchema.safeParse({ appId: "", appPassword }).success).toBe(false);
  });
});
