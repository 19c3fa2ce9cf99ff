import type { AuditLog } from "./audit-log.ts";
import { InvalidInputError, UnknownTenantError } from "./errors.ts";
import { newTokenId } from "./ids.ts";
import { assertTenantAccess, type Principal } from "./principal.ts";
import { hashToken, newSecretToken } from "./secret-token.ts";
import type { SqlClient } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";

export interface IssuedToken {
  /** The secret itself: shown once, never stored. */
  token: string;
  tokenId: string;
  tenantId: string;
  createdAt: string;
}

/** ADMIN_TOKEN is chosen by a person and stored as a fast hash, so it must at least not be short. */
const minOperatorTokenLength = 16;
/** Longer than any token we issue by far; longer bearers are not worth a database round trip. */
const maxBearerLength = 512;

/** Who may use the admin API: the operator token and the tenant admin tokens, all stored as SHA-256 hashes. */
export class AdminTokens {
  constructor(
    private readonly sql: SqlClient,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Makes sure an operator token exists. Given ADMIN_TOKEN, that is the operator token (replacing an older one) and
   * nothing is returned. Without it, the very first start generates one and returns it for the server to print
   * once; of several instances starting together exactly one wins the insert, and later starts return nothing.
   */
  async ensureOperatorToken(envToken?: string): Promise<string | undefined> {
    if (envToken !== undefined && envToken.length < minOperatorTokenLength) {
      throw new InvalidInputError([`ADMIN_TOKEN: must be at least ${minOperatorTokenLength} characters`]);
    }
    const token = envToken ?? newSecretToken();
    return this.sql.transaction(async (tx) => {
      // A row comes back only when this call inserted the token or replaced a different one.
      const written = await tx.query(
        envToken === undefined
          ? "insert into operator_token (token_hash) values ($1) on conflict (singleton) do nothing returning singleton"
          : `insert into operator_token (token_hash) values ($1) on conflict (singleton) do update
             set token_hash = excluded.token_hash, created_at = now()
             where operator_token.token_hash <> excluded.token_hash returning singleton`,
        [hashToken(token)],
      );
      if (written.length === 0) return undefined;
      const action = envToken === undefined ? "operator_token.generate" : "operator_token.set";
      await this.audit.record(tx, { tenantId: null, actor: "system", action, target: "operator" });
      return envToken === undefined ? token : undefined;
    });
  }

  /** A new admin token for the tenant. Throws UnknownTenantError when the tenant does not exist. */
  async issue(by: Principal, tenantId: string): Promise<IssuedToken> {
    assertTenantAccess(by, tenantId);
    const token = newSecretToken();
    const tokenId = newTokenId();
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ created_at: Date | string }>(
        `insert into admin_tokens (id, tenant_id, token_hash) select $1, $2, $3
         where exists (select 1 from tenants where id = $2) returning created_at`,
        [tokenId, tenantId, hashToken(token)],
      );
      if (!row) throw new UnknownTenantError(tenantId);
      await this.audit.record(tx, { tenantId, actor: by, action: "token.issue", target: tokenId });
      return { token, tokenId, tenantId, createdAt: timestamp(row.created_at) };
    });
  }

  /**
   * Who holds this bearer token, or undefined. One statement both finds a tenant token and records its
   * last_used_at, so recording use costs no extra round trip.
   */
  async authenticate(bearer: string): Promise<Principal | undefined> {
    if (bearer.length === 0 || bearer.length > maxBearerLength) return undefined;
    const [found] = await this.sql.query<{ role: "operator" | "tenant"; token_id: string; tenant_id: string }>(
      `with tenant_token as (
         update admin_tokens set last_used_at = now() where token_hash = $1 returning id, tenant_id
       )
       select 'tenant' as role, id as token_id, tenant_id from tenant_token
       union all
       select 'operator', null::text, null::text from operator_token where token_hash = $1`,
      [hashToken(bearer)],
    );
    if (!found) return undefined;
    return found.role === "operator"
      ? { role: "operator" }
      : { role: "tenant", tenantId: found.tenant_id, tokenId: found.token_id };
  }
}
