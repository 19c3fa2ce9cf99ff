import { setTimeout as sleep } from "node:timers/promises";
import type { NewInstallation } from "@resident/core";
import { describe, expect, it } from "vitest";
import { InstallationTakenError } from "../src/index.ts";
import { backends, secretValue, tenantsPerSuite } from "./helpers.ts";

const operator = { role: "operator" } as const;

describe.each(backends)("$name: installations of a distributed app", (backend) => {
  const suite = tenantsPerSuite(backend);
  const { seen } = suite;

  const tenantWithToken = async () => {
    const tenant = await suite.tenants.registry.createTenant(operator, { name: "Acme" });
    const issued = await suite.tenants.tokens.issue(operator, tenant.id);
    return { tenantId: tenant.id, tokenId: issued.tokenId };
  };
  const installation = (binding: NewInstallation["binding"], key: string): NewInstallation => ({
    platform: "slack",
    binding,
    key,
    name: "Acme HQ",
    credentials: { botToken: `xoxb-${secretValue("bot")}`, botTokenExpiresAt: Date.now() + 43_200_000 },
    identity: { botUserId: "U1", teamId: key.slice(5) },
  });

  it("hands a state back once, with the binding it was begun with, and never for another platform", async () => {
    const binding = await tenantWithToken();
    const state = await suite.tenants.installations.beginInstall("slack", binding, 60_000);
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await suite.tenants.installations.takeInstall("teams", state)).toBeUndefined();
    // The wrong platform's attempt took nothing away either.
    const [taken, again] = await Promise.all([
      suite.tenants.installations.takeInstall("slack", state),
      suite.tenants.installations.takeInstall("slack", state),
    ]);
    expect([taken, again].filter(Boolean)).toEqual([binding]);
    expect(await suite.tenants.installations.takeInstall("slack", state)).toBeUndefined();
    expect(await suite.tenants.installations.takeInstall("slack", "made-up-state")).toBeUndefined();
    // Only a hash of the state is stored.
    expect(JSON.stringify(await suite.sql.query("select * from install_states"))).not.toContain(state);
  });

  it("refuses a state that expired, or whose admin token was revoked since", async () => {
    const binding = await tenantWithToken();
    const expiring = await suite.tenants.installations.beginInstall("slack", binding, 1);
    await sleep(20);
    expect(await suite.tenants.installations.takeInstall("slack", expiring)).toBeUndefined();

    const state = await suite.tenants.installations.beginInstall("slack", binding, 60_000);
    await suite.tenants.tokens.revoke(operator, binding.tenantId, binding.tokenId);
    expect(await suite.tenants.installations.takeInstall("slack", state)).toBeUndefined();
  });

  it("keeps an installation as a workspace of the tenant, its tokens sealed, found by its key", async () => {
    const binding = await tenantWithToken();
    const given = installation(binding, "team:TACME1");
    const { workspaceId, tenantId } = await suite.tenants.installations.install(given);
    expect(tenantId).toBe(binding.tenantId);
    expect(seen).toContain(workspaceId);

    const record = await suite.tenants.registry.getWorkspace(operator, tenantId, workspaceId);
    expect(record).toMatchObject({
      platform: "slack",
      name: "Acme HQ",
      credentialFields: ["botToken", "botTokenExpiresAt"],
      installed: true,
    });
    expect(record?.disabled).toBeUndefined();
    const workspace = await suite.tenants.directory.workspace(workspaceId);
    expect(workspace?.credentials).toEqual(given.credentials);
    expect(JSON.stringify(await suite.sql.query("select * from workspaces"))).not.toContain(given.credentials.botToken);

    // The first key installed wins; unknown keys find nothing.
    expect(await suite.tenants.installations.workspaceFor("slack", ["team:TNOPE", "team:TACME1"])).toBe(workspaceId);
    expect(await suite.tenants.installations.workspaceFor("slack", ["team:TNOPE"])).toBeUndefined();
    expect(await suite.tenants.installations.workspaceFor("teams", ["team:TACME1"])).toBeUndefined();
    const audit = await suite.tenants.registry.listAudit(operator, { tenantId });
    expect(audit[0]).toMatchObject({ action: "workspace.install", actor: binding.tokenId, target: workspaceId });
  });

  it("prefers the more specific of two keys: a team's own install over its org's", async () => {
    const binding = await tenantWithToken();
    const org = await suite.tenants.installations.install(installation(binding, "enterprise:EORG1"));
    const team = await suite.tenants.installations.install(installation(binding, "team:TORG1A"));
    expect(await suite.tenants.installations.workspaceFor("slack", ["team:TORG1A", "enterprise:EORG1"])).toBe(
      team.workspaceId,
    );
    expect(await suite.tenants.installations.workspaceFor("slack", ["team:TORG1B", "enterprise:EORG1"])).toBe(
      org.workspaceId,
    );
  });

  it("disables a workspace once: hidden from the pipeline, shown with its reason; a new install enables it", async () => {
    const binding = await tenantWithToken();
    const { workspaceId, tenantId } = await suite.tenants.installations.install(installation(binding, "team:TGONE1"));
    await suite.tenants.installations.disable(workspaceId, "app_uninstalled");
    await suite.tenants.installations.disable(workspaceId, "tokens_revoked");
    expect(await suite.tenants.directory.workspace(workspaceId)).toBeUndefined();
    const record = await suite.tenants.registry.getWorkspace(operator, tenantId, workspaceId);
    expect(record?.disabled).toEqual({ at: expect.any(String), reason: "app_uninstalled" });
    const audit = await suite.tenants.registry.listAudit(operator, { tenantId });
    expect(audit.filter((entry) => entry.action === "workspace.disable")).toHaveLength(1);

    const again = await suite.tenants.installations.install(installation(binding, "team:TGONE1"));
    expect(again.workspaceId).toBe(workspaceId);
    expect((await suite.tenants.registry.getWorkspace(operator, tenantId, workspaceId))?.disabled).toBeUndefined();
    expect(await suite.tenants.directory.workspace(workspaceId)).toBeDefined();
  });

  it("refuses another tenant's install of a team already installed, and changes nothing", async () => {
    const first = await tenantWithToken();
    const second = await tenantWithToken();
    const kept = installation(first, "team:TTAKEN");
    const { workspaceId } = await suite.tenants.installations.install(kept);
    await expect(suite.tenants.installations.install(installation(second, "team:TTAKEN"))).rejects.toBeInstanceOf(
      InstallationTakenError,
    );
    expect((await suite.tenants.directory.workspace(workspaceId))?.credentials).toEqual(kept.credentials);
    expect(await suite.tenants.registry.listWorkspaces(operator, second.tenantId)).toEqual([]);
  });
});
