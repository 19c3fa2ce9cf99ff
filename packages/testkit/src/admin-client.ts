export interface AdminResponse<T = unknown> {
  status: number;
  body: T;
}

/** The admin API (`/admin/api`) as a tenant admin or the operator uses it, for tests, the demo and the bench. */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  as(token: string): AdminClient {
    return new AdminClient(this.baseUrl, token);
  }

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<AdminResponse<T>> {
    const response = await fetch(`${this.baseUrl}/admin/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** Like `request`, but throws unless the status is the one expected. */
  async expect<T = Record<string, unknown>>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== status) {
      throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }

  /** A new tenant and a token for its admin. */
  async createTenant(name: string): Promise<{ tenantId: string; token: string; admin: AdminClient }> {
    const { id } = await this.expect<{ id: string }>(201, "POST", "/tenants", { name });
    const { token } = await this.expect<{ token: string }>(201, "POST", `/tenants/${id}/tokens`);
    return { tenantId: id, token, admin: this.as(token) };
  }

  async createWorkspace(
    tenantId: string,
    workspace: { platform: string; name: string; credentials: unknown; settings?: unknown },
  ): Promise<{ id: string; webhookPath: string } & Record<string, unknown>> {
    return this.expect(201, "POST", `/tenants/${tenantId}/workspaces`, workspace);
  }
}
