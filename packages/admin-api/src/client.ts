// The one file of core the console takes: a subpath, so the browser bundle has none of the pipeline.
import { retryAfterMs } from "@resident/core/retry-after";
import type {
  AuditEntry,
  Budget,
  ConnectionTest,
  InstallStart,
  IssuedToken,
  Me,
  Platform,
  PlatformView,
  ReceiverConnections,
  Series,
  StatRange,
  Tenant,
  TenantBudgets,
  TenantPatch,
  TenantStats,
  TokenInput,
  TokenRecord,
  ToolInfo,
  ToolList,
  ToolServer,
  ToolServerInput,
  Workspace,
  WorkspaceFeedback,
  WorkspaceInput,
} from "./api-types.ts";

/** The admin API refused or failed; `message` is its own words, `reason` and `detail` what a 422 explains. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly answer: { issues?: string[]; reason?: string; detail?: string } = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** One answer of the admin API as it came: its status, its JSON body (undefined when empty), its headers. */
export interface AdminResponse<T = Record<string, unknown>> {
  status: number;
  statusText: string;
  body: T;
  headers: Headers;
}

/**
 * `/admin/api` with one admin token: the console's client in the browser (same origin, `baseUrl` ""), and the tests',
 * the demo's and the bench's against a running service. The typed methods throw ApiError on a refusal; `request`
 * hands back any answer as it is, for tests of refusals.
 */
export class AdminApi {
  constructor(
    readonly token: string,
    readonly baseUrl = "",
  ) {}

  /** The same service with another token. */
  as(token: string): AdminApi {
    return new AdminApi(token, this.baseUrl);
  }

  me = () => this.call<Me>("GET", "/me");
  platforms = () => this.call<PlatformView[]>("GET", "/platforms");
  tenants = () => this.call<Tenant[]>("GET", "/tenants");
  tenant = (tenantId: string) => this.call<Tenant>("GET", `/tenants/${tenantId}`);
  createTenant = (name: string) => this.call<Tenant>("POST", "/tenants", { name });
  updateTenant = (tenantId: string, patch: TenantPatch) => this.call<Tenant>("PATCH", `/tenants/${tenantId}`, patch);
  issueToken = (tenantId: string, input?: TokenInput) =>
    this.call<IssuedToken>("POST", `/tenants/${tenantId}/tokens`, input);
  tokens = (tenantId: string) => this.call<TokenRecord[]>("GET", `/tenants/${tenantId}/tokens`);
  revokeToken = (tenantId: string, tokenId: string) =>
    this.call<void>("DELETE", `/tenants/${tenantId}/tokens/${tokenId}`);
  workspaces = (tenantId: string) => this.call<Workspace[]>("GET", `/tenants/${tenantId}/workspaces`);
  workspace = (tenantId: string, id: string) => this.call<Workspace>("GET", `/tenants/${tenantId}/workspaces/${id}`);
  createWorkspace = (tenantId: string, input: WorkspaceInput) =>
    this.call<Workspace>("POST", `/tenants/${tenantId}/workspaces`, input);
  updateWorkspace = (tenantId: string, id: string, input: WorkspaceInput) =>
    this.call<Workspace>("PATCH", `/tenants/${tenantId}/workspaces/${id}`, input);
  deleteWorkspace = (tenantId: string, id: string) =>
    this.call<void>("DELETE", `/tenants/${tenantId}/workspaces/${id}`);
  testConnection = (tenantId: string, id: string) =>
    this.call<ConnectionTest>("POST", `/tenants/${tenantId}/workspaces/${id}/test-connection`);
  connections = (tenantId: string, id: string) =>
    this.call<ReceiverConnections>("GET", `/tenants/${tenantId}/workspaces/${id}/connections`);
  stats = (tenantId: string) => this.call<TenantStats>("GET", `/tenants/${tenantId}/stats`);
  series = (tenantId: string, id: string, range: StatRange) =>
    this.call<Series>("GET", `/tenants/${tenantId}/workspaces/${id}/series?range=${range}`);
  feedback = (tenantId: string, id: string, days?: number) =>
    this.call<WorkspaceFeedback>("GET", `/tenants/${tenantId}/workspaces/${id}/feedback${days ? `?days=${days}` : ""}`);
  toolServers = (tenantId: string, id: string) =>
    this.call<ToolServer[]>("GET", `/tenants/${tenantId}/workspaces/${id}/tool-servers`);
  attachToolServer = (tenantId: string, id: string, input: ToolServerInput) =>
    this.call<ToolServer & { tools: ToolInfo[] }>("POST", `/tenants/${tenantId}/workspaces/${id}/tool-servers`, input);
  toolsOf = (tenantId: string, id: string, serverId: string) =>
    this.call<ToolList>("GET", `/tenants/${tenantId}/workspaces/${id}/tool-servers/${serverId}/tools`);
  detachToolServer = (tenantId: string, id: string, serverId: string) =>
    this.call<void>("DELETE", `/tenants/${tenantId}/workspaces/${id}/tool-servers/${serverId}`);
  budgets = (tenantId: string) => this.call<TenantBudgets>("GET", `/tenants/${tenantId}/budgets`);
  setTenantBudget = (tenantId: string, budget: Budget) =>
    this.call<Budget>("PUT", `/tenants/${tenantId}/budget`, budget);
  setWorkspaceBudget = (tenantId: string, id: string, budget: Budget) =>
    this.call<Budget>("PUT", `/tenants/${tenantId}/workspaces/${id}/budget`, budget);
  /** In a browser, the answer also sets the cookie that ties the install to it. */
  beginInstall = (tenantId: string, platform: Platform) =>
    this.call<InstallStart>("POST", `/tenants/${tenantId}/installs/${platform}`);
  audit = (tenantId: string) => this.call<AuditEntry[]>("GET", `/tenants/${tenantId}/audit`);

  /** A new tenant and an admin of its own (a tenant token, and a client that uses it). */
  async tenantWithAdmin(name: string): Promise<{ tenantId: string; token: string; admin: AdminApi }> {
    const { id } = await this.createTenant(name);
    const { token } = await this.issueToken(id);
    return { tenantId: id, token, admin: this.as(token) };
  }

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<AdminResponse<T>> {
    const response = await fetch(`${this.baseUrl}/admin/api${path}`, {
      method,
      cache: "no-store",
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const { status, statusText, headers } = response;
    return { status, statusText, body: (text ? JSON.parse(text) : undefined) as T, headers };
  }

  /** Like `request`, but throws unless the status is the one expected. */
  async expect<T = Record<string, unknown>>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== status) {
      throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, statusText, body: answer, headers } = await this.request<T & ApiRefusal>(method, path, body);
    if (status < 200 || status > 299) {
      const waitMs = retryAfterMs(headers.get("retry-after"));
      const retryAfter = waitMs === undefined ? undefined : Math.ceil(waitMs / 1000);
      throw new ApiError(status, answer?.error ?? statusText, answer ?? {}, retryAfter);
    }
    return answer;
  }
}

/** What the admin API says when it refuses. */
interface ApiRefusal {
  error?: string;
  issues?: string[];
  reason?: string;
  detail?: string;
}
