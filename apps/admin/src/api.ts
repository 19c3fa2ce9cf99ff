import type {
  AuditEntry,
  ConnectionTest,
  IssuedToken,
  Me,
  PlatformView,
  Series,
  StatRange,
  Tenant,
  TenantPatch,
  TenantStats,
  TokenInput,
  TokenRecord,
  Workspace,
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

/** `/admin/api` with one admin token. */
export class AdminApi {
  constructor(private readonly token: string) {}

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
  stats = (tenantId: string) => this.call<TenantStats>("GET", `/tenants/${tenantId}/stats`);
  series = (tenantId: string, id: string, range: StatRange) =>
    this.call<Series>("GET", `/tenants/${tenantId}/workspaces/${id}/series?range=${range}`);
  audit = (tenantId: string) => this.call<AuditEntry[]>("GET", `/tenants/${tenantId}/audit`);

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`/admin/api${path}`, {
      method,
      cache: "no-store",
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const answer = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const retryAfter = Number(response.headers.get("retry-after")) || undefined;
      throw new ApiError(response.status, answer?.error ?? response.statusText, answer ?? {}, retryAfter);
    }
    return answer as T;
  }
}
