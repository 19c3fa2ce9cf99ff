import { describe, expect, it } from "vitest";
import {
  AccessDeniedError,
  InvalidInputError,
  type Principal,
  UnknownTenantError,
  WrongSecretKeyError,
} from "../src/index.ts";
import { backends, secretValue, slackCredentials, tenantsPerSuite } from "./helpers.ts";

const operator: Principal = { role: "operator" };

describe.each(backends)("$name: the registry", (backend) => {
  const suite = tenantsPerSuite(backend);
  const { lines } = suite;
  /** Every secret handed to the package or received from it; none may show up in a log line or the audit log. */
  const secrets: string[] = [suite.secretKey];

  const credentials = () => {
    const value = slackCredentials();
    secrets.push(value.signingSecret, value.botToken);
    return value;
  };
  const newTenant = (name = "Acme") => suite.tenants.registry.createTenant(operator, { name });
  const newWorkspace = (tenantId: string) =>
    suite.tenants.registry.createWorkspace(operator, tenantId, {
      platform: "slack",
      name: "support",
      credentials: credentials(),
      settings: { model: "claude-haiku-4-5" },
      identity: { botUserId: "U0BOT" },
    });
  const counts = async () =>
    (
      await suite.sql.query<{ workspaces: number; audit: number }>(
        "select (select count(*)::int from workspaces) as workspaces, (select count(*)::int from audit_log) as audit",
      )
    )[0];

  describe("tenants", () => {
    it("creates, lists and gets tenants; a tenant admin sees only its own", async () => {
      const acme = await newTenant("Acme");
      const globex = await newTenant("Globex");
      expect(acme).toEqual({
        id: expect.stringMatching(/^tn_[A-Za-z0-9_-]{22}$/),
        name: "Acme",
        createdAt: expect.any(String),
        adminsMayIssueTokens: false,
      });
      expect(await suite.tenants.registry.getTenant(operator, acme.id)).toEqual(acme);
      expect((await suite.tenants.registry.listTenants(operator)).map((t) => t.id)).toEqual(
        expect.arrayContaining([acme.id, globex.id]),
      );

      const acmeAdmin = await suite.tenants.tokens.authenticate(
        (await suite.tenants.tokens.issue(operator, acme.id)).token,
      );
      expect(await suite.tenants.registry.listTenants(acmeAdmin as Principal)).toEqual([acme]);
      await expect(suite.tenants.registry.getTenant(acmeAdmin as Principal, globex.id)).rejects.toBeInstanceOf(
        AccessDeniedError,
      );
      await expect(
        suite.tenants.registry.createTenant(acmeAdmin as Principal, { name: "Mine" }),
      ).rejects.toBeInstanceOf(AccessDeniedError);
      expect(await suite.tenants.registry.getTenant(operator, "tn_missing")).toBeUndefined();
    });
  });

  describe("workspaces", () => {
    it("creates a workspace and returns it without credentials", async () => {
      const tenant = await newTenant();
      const workspace = await newWorkspace(tenant.id);
      expect(workspace).toEqual({
        id: expect.stringMatching(/^ws_[A-Za-z0-9_-]{22}$/),
        tenantId: tenant.id,
        platform: "slack",
        name: "support",
        settings: { model: "claude-haiku-4-5" },
        identity: { botUserId: "U0BOT" },
        credentialFields: ["signingSecret", "botToken"],
        installed: false,
        createdAt: expect.any(String),
        updatedAt: workspace.createdAt,
      });
      expect(workspace.id).not.toContain(":");
      expect(await suite.tenants.registry.getWorkspace(operator, tenant.id, workspace.id)).toEqual(workspace);
      expect(await suite.tenants.registry.listWorkspaces(operator, tenant.id)).toEqual([workspace]);
    });

    it("patches: a new name, settings merged (null resets), credentials replaced whole", async () => {
      const tenant = await newTenant();
      const workspace = await newWorkspace(tenant.id);
      const renamed = await suite.tenants.registry.updateWorkspace(operator, tenant.id, workspace.id, {
        name: "helpdesk",
        settings: { failMode: "open" },
      });
      expect(renamed).toMatchObject({ name: "helpdesk", settings: { model: "claude-haiku-4-5", failMode: "open" } });

      const reset = await suite.tenants.registry.updateWorkspace(operator, tenant.id, workspace.id, {
        settings: { model: null },
      });
      expect(reset?.settings).toEqual({ failMode: "open" });

      const rotated = { apiToken: secretValue("api"), webhookToken: secretValue("hook") };
      secrets.push(rotated.apiToken, rotated.webhookToken);
      const replaced = await suite.tenants.registry.updateWorkspace(operator, tenant.id, workspace.id, {
        credentials: rotated,
      });
      expect(replaced?.credentialFields).toEqual(["apiToken", "webhookToken"]);
      expect((await suite.tenants.directory.workspace(workspace.id))?.credentials).toEqual(rotated);
      expect(Date.parse(replaced?.updatedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(workspace.updatedAt));
    });

    it("deletes a workspace once", async () => {
      const tenant = await newTenant();
      const workspace = await newWorkspace(tenant.id);
      expect(await suite.tenants.registry.deleteWorkspace(operator, tenant.id, workspace.id)).toBe(true);
      expect(await suite.tenants.registry.getWorkspace(operator, tenant.id, workspace.id)).toBeUndefined();
      expect(await suite.tenants.directory.workspace(workspace.id)).toBeUndefined();
      expect(await suite.tenants.registry.deleteWorkspace(operator, tenant.id, workspace.id)).toBe(false);
    });

    it("answers bad input with InvalidInputError and changes nothing", async () => {
      const tenant = await newTenant();
      const workspace = await newWorkspace(tenant.id);
      const before = await counts();
      const secret = secretValue("leak");
      const bad: unknown[] = [
        { platform: "irc", name: "x", credentials: { token: secret } },
        { platform: "slack", name: "", credentials: { token: secret } },
        { platform: "slack", name: "x", credentials: secret },
        { platform: "slack", name: "x", credentials: {} },
        { platform: "slack", name: "x", credentials: { token: secret }, settings: { eventTtlSeconds: 5 } },
        { platform: "slack", name: "x", credentials: { token: secret }, settings: { colour: "red" } },
        { platform: "slack", name: "x", credentials: { token: secret }, extra: secret },
      ];
      for (const input of bad) {
        const attempt = suite.tenants.registry.createWorkspace(operator, tenant.id, input as never);
        await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
        await expect(attempt).rejects.not.toThrow(secret);
      }
      for (const patch of [{ settings: { failMode: "sometimes" } }, { settings: { colour: null } }, { name: 7 }]) {
        const attempt = suite.tenants.registry.updateWorkspace(operator, tenant.id, workspace.id, patch as never);
        await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
      }
      await expect(suite.tenants.registry.createTenant(operator, { name: "  " })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      await expect(suite.tenants.registry.listAudit(operator, { limit: 0 })).rejects.toBeInstanceOf(InvalidInputError);
      expect(await counts()).toEqual(before);
      expect(await suite.tenants.registry.getWorkspace(operator, tenant.id, workspace.id)).toEqual(workspace);
    });

    it("refuses a workspace or a token for a tenant that does not exist", async () => {
      await expect(
        suite.tenants.registry.createWorkspace(operator, "tn_missing", {
          platform: "slack",
          name: "x",
          credentials: credentials(),
        }),
      ).rejects.toBeInstanceOf(UnknownTenantError);
      await expect(suite.tenants.tokens.issue(operator, "tn_missing")).rejects.toBeInstanceOf(UnknownTenantError);
    });
  });

  describe("tenant isolation", () => {
    it("never lets tenant A see or change tenant B's workspaces", async () => {
      const a = await newTenant("A");
      const b = await newTenant("B");
      const bWorkspace = await newWorkspace(b.id);
      const adminA = (await suite.tenants.tokens.authenticate(
        (
          await suite.tenants.tokens.issue(operator, a.id)
        ).token,
      )) as Principal;
      const { registry } = suite.tenants;

      // Through its own tenant id, A finds nothing of B's.
      expect(await registry.getWorkspace(adminA, a.id, bWorkspace.id)).toBeUndefined();
      expect(await registry.listWorkspaces(adminA, a.id)).toEqual([]);
      expect(await registry.updateWorkspace(adminA, a.id, bWorkspace.id, { name: "taken" })).toBeUndefined();
      expect(await registry.deleteWorkspace(adminA, a.id, bWorkspace.id)).toBe(false);
      // Through B's tenant id, A is refused outright.
      for (const call of [
        () => registry.listWorkspaces(adminA, b.id),
        () => registry.getWorkspace(adminA, b.id, bWorkspace.id),
        () => registry.createWorkspace(adminA, b.id, { platform: "slack", name: "x", credentials: credentials() }),
        () => registry.updateWorkspace(adminA, b.id, bWorkspace.id, { name: "taken" }),
        () => registry.deleteWorkspace(adminA, b.id, bWorkspace.id),
        () => registry.listAudit(adminA, { tenantId: b.id }),
        () => suite.tenants.tokens.issue(adminA, b.id),
      ]) {
        await expect(call()).rejects.toBeInstanceOf(AccessDeniedError);
      }

      expect(await registry.getWorkspace(operator, b.id, bWorkspace.id)).toEqual(bWorkspace);
      expect((await registry.listAudit(adminA)).every((entry) => entry.tenantId === a.id)).toBe(true);
    });
  });

  describe("credentials at rest", () => {
    it("stores credentials encrypted, bound to their workspace, and opens them again", async () => {
      const tenant = await newTenant();
      const given = credentials();
      const workspace = await suite.tenants.registry.createWorkspace(operator, tenant.id, {
        platform: "slack",
        name: "x",
        credentials: given,
      });
      const other = await newWorkspace(tenant.id);
      const [row] = await suite.sql.query<Record<string, unknown>>("select * from workspaces where id = $1", [
        workspace.id,
      ]);
      const raw = JSON.stringify(row);
      expect(raw).not.toContain(given.signingSecret);
      expect(raw).not.toContain(given.botToken);
      expect(row?.credentials_ciphertext).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((await suite.tenants.directory.workspace(workspace.id))?.credentials).toEqual(given);

      // The ciphertext copied onto another workspace's row does not open there.
      await suite.sql.query("update workspaces set credentials_ciphertext = $1 where id = $2", [
        row?.credentials_ciphertext,
        other.id,
      ]);
      await expect(suite.tenants.directory.workspace(other.id)).rejects.toBeInstanceOf(WrongSecretKeyError);
    });
  });

  describe("admin tokens", () => {
    it("issues a tenant token once, stores only its hash, and authenticates it", async () => {
      const tenant = await newTenant();
      const issued = await suite.tenants.tokens.issue(operator, tenant.id);
      secrets.push(issued.token);
      expect(issued.token).toMatch(/^rsd_[A-Za-z0-9_-]{43}$/);
      const [row] = await suite.sql.query<Record<string, unknown>>("select * from admin_tokens where id = $1", [
        issued.tokenId,
      ]);
      expect(JSON.stringify(row)).not.toContain(issued.token.slice(4));
      expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row?.last_used_at).toBeNull();

      expect(await suite.tenants.tokens.authenticate(issued.token)).toEqual({
        role: "tenant",
        tenantId: tenant.id,
        tokenId: issued.tokenId,
      });
      const [used] = await suite.sql.query<{ last_used_at: Date | null }>(
        "select last_used_at from admin_tokens where id = $1",
        [issued.tokenId],
      );
      expect(used?.last_used_at).toBeInstanceOf(Date);
    });

    it("knows nothing of unknown, altered or empty tokens", async () => {
      const tenant = await newTenant();
      const { token } = await suite.tenants.tokens.issue(operator, tenant.id);
      secrets.push(token);
      const altered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
      for (const bearer of [altered, `rsd_${"x".repeat(43)}`, "", "x".repeat(10_000)]) {
        expect(await suite.tenants.tokens.authenticate(bearer)).toBeUndefined();
      }
    });

    it("names a token, lists the tenant's tokens without their secrets, expires and revokes them", async () => {
      const tenant = await newTenant();
      const kept = await suite.tenants.tokens.issue(operator, tenant.id, { name: "Kept" });
      const expiring = await suite.tenants.tokens.issue(operator, tenant.id, {
        name: "Brief",
        expiresAt: new Date(Date.now() + 1_500).toISOString(),
      });
      const revoked = await suite.tenants.tokens.issue(operator, tenant.id);
      secrets.push(kept.token, expiring.token, revoked.token);
      expect(kept).toMatchObject({ name: "Kept", start: kept.token.slice(0, 12), expiresAt: null, lastUsedAt: null });
      expect(revoked.name).toBe("admin token");
      const admin = (await suite.tenants.tokens.authenticate(kept.token)) as Principal;

      const listed = await suite.tenants.tokens.list(admin, tenant.id);
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(["Kept", "Brief", "admin token"]));
      expect(listed.find((t) => t.tokenId === kept.tokenId)?.lastUsedAt).toEqual(expect.any(String));
      for (const { token } of [kept, expiring, revoked]) expect(JSON.stringify(listed)).not.toContain(token);

      expect(await suite.tenants.tokens.revoke(admin, tenant.id, revoked.tokenId)).toBe(true);
      expect(await suite.tenants.tokens.revoke(admin, tenant.id, revoked.tokenId)).toBe(false);
      expect(await suite.tenants.tokens.authenticate(revoked.token)).toBeUndefined();
      expect(await suite.tenants.tokens.authenticate(expiring.token)).toMatchObject({ tokenId: expiring.tokenId });
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect(await suite.tenants.tokens.authenticate(expiring.token)).toBeUndefined();
      expect(await suite.tenants.tokens.authenticate(kept.token)).toMatchObject({ tokenId: kept.tokenId });

      const audit = await suite.tenants.registry.listAudit(operator, { tenantId: tenant.id });
      expect(audit.filter((e) => e.action === "token.revoke").map((e) => [e.actor, e.target])).toEqual([
        [kept.tokenId, revoked.tokenId],
      ]);
      expect(audit.filter((e) => e.action === "token.issue")).toHaveLength(3);
      for (const bad of [{ name: "nul\u0000byte" }, { expiresAt: "2001-01-01T00:00:00Z" }, { name: "" }]) {
        await expect(suite.tenants.tokens.issue(operator, tenant.id, bad)).rejects.toBeInstanceOf(InvalidInputError);
      }
    });

    it("lets a tenant's admins issue tokens only while the operator allows it", async () => {
      const tenant = await newTenant();
      const issued = await suite.tenants.tokens.issue(operator, tenant.id);
      secrets.push(issued.token);
      const admin = (await suite.tenants.tokens.authenticate(issued.token)) as Principal;
      await expect(suite.tenants.tokens.issue(admin, tenant.id)).rejects.toBeInstanceOf(AccessDeniedError);
      await expect(
        suite.tenants.registry.updateTenant(admin, tenant.id, { adminsMayIssueTokens: true }),
      ).rejects.toBeInstanceOf(AccessDeniedError);

      const allowed = await suite.tenants.registry.updateTenant(operator, tenant.id, { adminsMayIssueTokens: true });
      expect(allowed?.adminsMayIssueTokens).toBe(true);
      const minted = await suite.tenants.tokens.issue(admin, tenant.id, { name: "by the admin" });
      secrets.push(minted.token);
      expect(await suite.tenants.tokens.authenticate(minted.token)).toMatchObject({ tenantId: tenant.id });

      await suite.tenants.registry.updateTenant(operator, tenant.id, { adminsMayIssueTokens: false });
      await expect(suite.tenants.tokens.issue(admin, tenant.id)).rejects.toBeInstanceOf(AccessDeniedError);
      const audit = await suite.tenants.registry.listAudit(operator, { tenantId: tenant.id });
      expect(audit.filter((e) => e.action === "tenant.update")).toHaveLength(2);
    });

    it("stores a chosen ADMIN_TOKEN with scrypt and a random salt, and accepts it", async () => {
      const chosen = secretValue("chosen-operator");
      secrets.push(chosen);
      await suite.tenants.tokens.ensureOperatorToken(chosen);
      const [first] = await suite.sql.query<{ token_hash: string }>("select token_hash from operator_token");
      expect(first?.token_hash).toMatch(/^scrypt\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(await suite.tenants.tokens.authenticate(chosen)).toEqual({ role: "operator" });
      expect(await suite.tenants.tokens.authenticate(`${chosen}x`)).toBeUndefined();
      // Starting again with the same token changes nothing; the same token elsewhere gets another salt.
      await suite.tenants.tokens.ensureOperatorToken(chosen);
      const [again] = await suite.sql.query<{ token_hash: string }>("select token_hash from operator_token");
      expect(again?.token_hash).toBe(first?.token_hash);
      await suite.sql.query("delete from operator_token");
      await suite.tenants.tokens.ensureOperatorToken(chosen);
      const [elsewhere] = await suite.sql.query<{ token_hash: string }>("select token_hash from operator_token");
      expect(elsewhere?.token_hash).not.toBe(first?.token_hash);
    });

    it("takes ADMIN_TOKEN as the operator token, replacing an older one", async () => {
      const first = secretValue("admin-token-one");
      const second = secretValue("admin-token-two");
      secrets.push(first, second);
      expect(await suite.tenants.tokens.ensureOperatorToken(first)).toBeUndefined();
      expect(await suite.tenants.tokens.authenticate(first)).toEqual({ role: "operator" });
      expect(await suite.tenants.tokens.ensureOperatorToken(second)).toBeUndefined();
      expect(await suite.tenants.tokens.authenticate(first)).toBeUndefined();
      expect(await suite.tenants.tokens.authenticate(second)).toEqual({ role: "operator" });
      expect(await suite.tenants.tokens.ensureOperatorToken()).toBeUndefined();
      await expect(suite.tenants.tokens.ensureOperatorToken("short")).rejects.toBeInstanceOf(InvalidInputError);
      expect(await suite.tenants.tokens.authenticate(second)).toEqual({ role: "operator" });
    });
  });

  describe("audit log", () => {
    it("records who changed which fields, newest first", async () => {
      const tenant = await newTenant();
      const issued = await suite.tenants.tokens.issue(operator, tenant.id);
      secrets.push(issued.token);
      const admin = (await suite.tenants.tokens.authenticate(issued.token)) as Principal;
      const workspace = await suite.tenants.registry.createWorkspace(admin, tenant.id, {
        platform: "slack",
        name: "x",
        credentials: credentials(),
      });
      await suite.tenants.registry.updateWorkspace(admin, tenant.id, workspace.id, {
        credentials: { ...credentials(), botToken: "kept" },
        settings: { systemPrompt: "be brief" },
      });
      await suite.tenants.registry.deleteWorkspace(operator, tenant.id, workspace.id);

      const entries = await suite.tenants.registry.listAudit(admin);
      expect(entries.map(({ actor, action, target, detail }) => ({ actor, action, target, detail }))).toEqual([
        { actor: "operator", action: "workspace.delete", target: workspace.id, detail: {} },
        {
          actor: issued.tokenId,
          action: "workspace.update",
          target: workspace.id,
          detail: { fields: ["credentials.signingSecret", "credentials.botToken", "settings.systemPrompt"] },
        },
        {
          actor: issued.tokenId,
          action: "workspace.create",
          target: workspace.id,
          detail: { platform: "slack", fields: ["name", "credentials.signingSecret", "credentials.botToken"] },
        },
        { actor: "operator", action: "token.issue", target: issued.tokenId, detail: { fields: ["name"] } },
        { actor: "operator", action: "tenant.create", target: tenant.id, detail: { fields: ["name"] } },
      ]);
      expect(await suite.tenants.registry.listAudit(operator, { tenantId: tenant.id, limit: 2 })).toEqual(
        entries.slice(0, 2),
      );
    });

    it("lists newest first by time and id as numbers, past id 10 and 200 entries, a page at a time", async () => {
      const tenant = await newTenant("busy");
      for (let i = 0; i < 250; i++)
        await suite.tenants.registry.updateTenant(operator, tenant.id, { name: `busy ${i}` });
      const ids: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await suite.tenants.registry.listAudit(operator, { tenantId: tenant.id, limit: 100, before });
        if (page.length === 0) break;
        ids.push(...page.map((entry) => entry.id));
        before = page.at(-1)?.id;
      }
      expect(ids).toHaveLength(251);
      const numbers = ids.map(Number);
      expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
      // Ids of several lengths (e.g. 99 and 100): as text they would sort apart from their order.
      expect(new Set(ids.map((id) => id.length)).size).toBeGreaterThan(1);
      const newest = await suite.tenants.registry.listAudit(operator, { tenantId: tenant.id, limit: 1 });
      expect(newest[0]).toMatchObject({ action: "tenant.update", id: ids[0] });
      await expect(suite.tenants.registry.listAudit(operator, { before: "1 or 1=1" })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it("holds no secret value, and neither does the log", async () => {
      const tenant = await newTenant();
      const issued = await suite.tenants.tokens.issue(operator, tenant.id);
      const admin = (await suite.tenants.tokens.authenticate(issued.token)) as Principal;
      const workspace = await newWorkspace(tenant.id);
      await suite.tenants.registry.updateWorkspace(admin, tenant.id, workspace.id, { credentials: credentials() });
      await suite.tenants.directory.workspace(workspace.id);
      const rejected = secretValue("rejected");
      await suite.tenants.registry
        .createWorkspace(admin, tenant.id, { platform: "slack", name: "", credentials: { botToken: rejected } })
        .catch(() => undefined);
      const mine = [...secrets, issued.token, rejected];

      const audit = JSON.stringify(await suite.tenants.registry.listAudit(operator, { limit: 1_000 }));
      const logged = lines.join("\n");
      expect(audit).toContain(workspace.id);
      expect(logged).toContain(workspace.id);
      for (const secret of mine) {
        expect(audit).not.toContain(secret);
        expect(logged).not.toContain(secret);
      }
    });
  });
});
