import { describe, expect, it } from "vitest";
import { InvalidInputError, type Principal } from "../src/index.ts";
import { backends, secretValue, slackCredentials, tenantsPerSuite } from "./helpers.ts";

const operator: Principal = { role: "operator" };

describe.each(backends)("$name: the MCP servers of a workspace", (backend) => {
  const suite = tenantsPerSuite(backend);
  const { seen, lines } = suite;

  const workspaceOf = async () => {
    const tenant = await suite.tenants.registry.createTenant(operator, { name: "Acme" });
    const workspace = await suite.tenants.registry.createWorkspace(operator, tenant.id, {
      platform: "slack",
      name: "support",
      credentials: slackCredentials(),
    });
    const admin: Principal = { role: "tenant", tenantId: tenant.id, tokenId: "tk_test" };
    return { tenantId: tenant.id, workspaceId: workspace.id, admin };
  };

  it("attaches a server with its auth header sealed; lists it without the value; the directory opens it", async () => {
    const { tenantId, workspaceId, admin } = await workspaceOf();
    const secret = `Bearer ${secretValue("mcp")}`;
    const attached = await suite.tenants.toolServers.attach(admin, tenantId, workspaceId, {
      name: "crm",
      url: "https://mcp.example.com/mcp",
      authHeader: { value: secret },
    });

    expect(attached).toEqual({
      id: expect.stringMatching(/^mcp_[A-Za-z0-9_-]{22}$/),
      workspaceId,
      name: "crm",
      url: "https://mcp.example.com/mcp",
      authHeader: { name: "Authorization" },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await suite.tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([attached]);
    expect(seen).toContain(workspaceId);
    const stored = await suite.sql.query<{ auth_ciphertext: string }>(
      "select auth_ciphertext from workspace_tool_servers",
    );
    expect(JSON.stringify(stored)).not.toContain(secret.slice(7));
    expect(lines.join("\n")).not.toContain(secret.slice(7));

    const workspace = await suite.tenants.directory.workspace(workspaceId);
    expect(workspace?.toolServers).toEqual([
      {
        id: attached?.id,
        name: "crm",
        url: "https://mcp.example.com/mcp",
        authHeader: { name: "Authorization", value: secret },
        updatedAt: attached?.updatedAt,
      },
    ]);
  });

  it("detaches; the directory forgets it; another tenant finds neither the workspace nor the server", async () => {
    const { tenantId, workspaceId, admin } = await workspaceOf();
    const other = await workspaceOf();
    const attached = await suite.tenants.toolServers.attach(admin, tenantId, workspaceId, {
      name: "t",
      url: "http://x/",
    });
    expect(await suite.tenants.directory.workspace(workspaceId)).toMatchObject({ toolServers: [{ name: "t" }] });

    expect(await suite.tenants.toolServers.list(other.admin, other.tenantId, workspaceId)).toBeUndefined();
    expect(
      await suite.tenants.toolServers.attach(other.admin, other.tenantId, workspaceId, { name: "u", url: "http://x/" }),
    ).toBeUndefined();
    expect(await suite.tenants.toolServers.detach(other.admin, other.tenantId, workspaceId, attached?.id ?? "")).toBe(
      false,
    );

    expect(await suite.tenants.toolServers.detach(admin, tenantId, workspaceId, attached?.id ?? "")).toBe(true);
    expect(await suite.tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([]);
    expect((await suite.tenants.directory.workspace(workspaceId))?.toolServers).toEqual([]);
    const audit = await suite.tenants.registry.listAudit(admin, { tenantId });
    expect(audit.map((entry) => entry.action).slice(0, 2)).toEqual(["tool-server.detach", "tool-server.attach"]);
  });

  it("refuses bad input naming the field, and a second server of the same name; nothing is stored", async () => {
    const { tenantId, workspaceId, admin } = await workspaceOf();
    const refused = async (input: unknown) => {
      const error = await suite.tenants.toolServers.attach(admin, tenantId, workspaceId, input as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      return (error as InvalidInputError).issues.join("; ");
    };
    expect(await refused({ name: "Bad Name", url: "https://x/" })).toMatch(/^input\.name: /);
    expect(await refused({ name: "a", url: "ftp://x/" })).toMatch(/^input\.url: must be an http or https URL/);
    expect(await refused({ name: "a", url: "https://user:pw@x/" })).toMatch(/^input\.url: must not carry/);
    expect(await refused({ name: "a", url: "https://x/", authHeader: { name: "Host", value: "v" } })).toMatch(
      /^input\.authHeader\.name: is set by the MCP transport/,
    );
    expect(await refused({ name: "a", url: "https://x/", authHeader: { value: "a\r\nX-Evil: 1" } })).toMatch(
      /^input\.authHeader\.value: /,
    );
    expect(await suite.tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([]);

    await suite.tenants.toolServers.attach(admin, tenantId, workspaceId, { name: "a", url: "https://x/" });
    expect(await refused({ name: "a", url: "https://y/" })).toMatch(/^name: this workspace has a tool server named a/);
    expect(await suite.tenants.toolServers.list(admin, tenantId, workspaceId)).toHaveLength(1);
  });
});
