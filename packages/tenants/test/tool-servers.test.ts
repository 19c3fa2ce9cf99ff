import { MemoryChangeFeed } from "@resident/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTenants,
  InvalidInputError,
  openDatabase,
  type Principal,
  type SqlClient,
  type Tenants,
} from "../src/index.ts";
import {
  backends,
  captureLogger,
  type Location,
  newSecretKey,
  platforms,
  secretValue,
  slackCredentials,
} from "./helpers.ts";

const operator: Principal = { role: "operator" };

describe.each(backends)("$name: the MCP servers of a workspace", (backend) => {
  let location: Location;
  let sql: SqlClient;
  let tenants: Tenants;
  const changes = new MemoryChangeFeed();
  const seen: string[] = [];
  const { logger, lines } = captureLogger();

  beforeAll(async () => {
    location = await backend.fresh();
    sql = await openDatabase({ ...location, logger });
    tenants = await createTenants(sql, {
      ...location,
      secretKey: newSecretKey(),
      logger,
      changeFeed: changes,
      platforms,
    });
    changes.subscribe((id) => seen.push(id));
  });
  afterAll(async () => {
    await tenants.close();
    await location.dispose();
  });

  const workspaceOf = async () => {
    const tenant = await tenants.registry.createTenant(operator, { name: "Acme" });
    const workspace = await tenants.registry.createWorkspace(operator, tenant.id, {
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
    const attached = await tenants.toolServers.attach(admin, tenantId, workspaceId, {
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
    expect(await tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([attached]);
    expect(seen).toContain(workspaceId);
    const stored = await sql.query<{ auth_ciphertext: string }>("select auth_ciphertext from workspace_tool_servers");
    expect(JSON.stringify(stored)).not.toContain(secret.slice(7));
    expect(lines.join("\n")).not.toContain(secret.slice(7));

    const workspace = await tenants.directory.workspace(workspaceId);
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
    const attached = await tenants.toolServers.attach(admin, tenantId, workspaceId, { name: "t", url: "http://x/" });
    expect(await tenants.directory.workspace(workspaceId)).toMatchObject({ toolServers: [{ name: "t" }] });

    expect(await tenants.toolServers.list(other.admin, other.tenantId, workspaceId)).toBeUndefined();
    expect(
      await tenants.toolServers.attach(other.admin, other.tenantId, workspaceId, { name: "u", url: "http://x/" }),
    ).toBeUndefined();
    expect(await tenants.toolServers.detach(other.admin, other.tenantId, workspaceId, attached?.id ?? "")).toBe(false);

    expect(await tenants.toolServers.detach(admin, tenantId, workspaceId, attached?.id ?? "")).toBe(true);
    expect(await tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([]);
    expect((await tenants.directory.workspace(workspaceId))?.toolServers).toEqual([]);
    const audit = await tenants.registry.listAudit(admin, { tenantId });
    expect(audit.map((entry) => entry.action).slice(0, 2)).toEqual(["tool-server.detach", "tool-server.attach"]);
  });

  it("refuses bad input naming the field, and a second server of the same name; nothing is stored", async () => {
    const { tenantId, workspaceId, admin } = await workspaceOf();
    const refused = async (input: unknown) => {
      const error = await tenants.toolServers.attach(admin, tenantId, workspaceId, input as never).then(
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
    expect(await tenants.toolServers.list(admin, tenantId, workspaceId)).toEqual([]);

    await tenants.toolServers.attach(admin, tenantId, workspaceId, { name: "a", url: "https://x/" });
    expect(await refused({ name: "a", url: "https://y/" })).toMatch(/^name: this workspace has a tool server named a/);
    expect(await tenants.toolServers.list(admin, tenantId, workspaceId)).toHaveLength(1);
  });
});
