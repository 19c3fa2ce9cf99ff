import { plainText } from "@resident/core";
import { z } from "zod";
import type { AuditLog } from "./audit-log.ts";
import { AccessDeniedError, InvalidInputError, UnknownTenantError } from "./errors.ts";
import { newTokenId } from "./ids.ts";
import { assertTenantAccess, type Principal } from "./principal.ts";
import { hashToken, isSlowHash, newSecretToken, slowHashToken, tokenMatches, tokenStart } from "./secret-token.ts";
import type { SqlClient } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";
import { parseInput } from "./workspace-input.ts";

/** A tenant admin token as it is listed: never the secret, only its first characters. */
export interface TokenRecord {
  tokenId: string;
  tenantId: string;
  name: string;
  /** The token's first characters (`rsd_` and 8 more), to tell it apart. */
  start: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export interface IssuedToken extends TokenRecord {
  /** The secret itself: shown once, never stored. */
  token: string;
}

export const tokenInputSchema = z
  .object({
    name: plainText().trim().min(1).max(100).default("admin token"),
    /** An ISO 8601 time in the future; absent: the token does not expire. */
    expiresAt: z.iso
      .datetime({ offset: true })
      .refine((at) => Date.parse(at) > Date.now(), "must be in the future")
      .optional(),
  })
  .strict();
export type TokenInput = z.input<typeof tokenInputSchema>;

interface TokenRow {
  id: string;
  tenant_id: string;
  name: string;
  token_start: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
}

const tokenColumns = "id, tenant_id, name, token_start, created_at, last_used_at, expires_at";
const optionalTime = (value: Date | string | null) => (value === null ? null : timestamp(value));
const toTokenRecord = (row: TokenRow): TokenRecord => ({
  tokenId: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  start: row.token_start,
  createdAt: timestamp(row.created_at),
  lastUsedAt: optionalTime(row.last_used_at),
  expiresAt: optionalTime(row.expires_at),
});

/** ADMIN_TOKEN is chosen by a person; at least it must not be short. */
const minOperatorTokenLength = 16;
/** Longer than any token we issue by far; longer bearers are not worth a database round trip. */
const maxBearerLength = 512;
/** Serializes operator-token writes of instances starting together ("operator" in ASCII, read as an integer). */
const operatorTokenLock = "8029390571262308466";

/**
 * Who may use the admin API: the operator token and the tenant admin tokens. Tenant tokens and a generated operator
 * token are stored as SHA-256 hashes, a chosen ADMIN_TOKEN as a salted scrypt hash. Nothing caches a tenant token:
 * every request looks it up (in the statement that records its use), so a revoked or expired token is refused by
 * every instance from the moment the revocation commits.
 */
export class AdminTokens {
  /** Bearers (by SHA-256) already found to be the operator token, with the stored hash they matched. */
  private readonly verifiedOperator = new Map<string, string>();

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
    return this.sql.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock($1::bigint)", [operatorTokenLock]);
      const [current] = await tx.query<{ token_hash: string }>("select token_hash from operator_token");
      if (envToken === undefined) {
        if (current) return undefined;
        const token = newSecretToken();
        await tx.query("insert into operator_token (token_hash) values ($1)", [hashToken(token)]);
        await this.audit.record(tx, {
          tenantId: null,
          actor: "system",
          action: "operator_token.generate",
          target: "operator",
        });
        return token;
      }
      const same = current ? await tokenMatches(envToken, current.token_hash) : false;
      if (same && isSlowHash(current?.token_hash ?? "")) return undefined;
      await tx.query(
        `insert into operator_token (token_hash) values ($1) on conflict (singleton) do update
         set token_hash = excluded.token_hash, created_at = case when $2 then operator_token.created_at else now() end`,
        [await slowHashToken(envToken), same],
      );
      // The same token moving from a fast to a slow hash is no change anyone made.
      if (!same) {
        await this.audit.record(tx, {
          tenantId: null,
          actor: "system",
          action: "operator_token.set",
          target: "operator",
        });
      }
      return undefined;
    });
  }

  /**
   * A new admin token for the tenant. The operator may always issue one; a tenant's own admin only when the operator
   * allowed it for that tenant (AccessDeniedError otherwise). UnknownTenantError when the tenant does not exist.
   */
  async issue(by: Principal, tenantId: string, input: TokenInput = {}): Promise<IssuedToken> {
    assertTenantAccess(by, tenantId);
    const { name, expiresAt } = parseInput(tokenInputSchema, input);
    const token = newSecretToken();
    const tokenId = newTokenId();
    return this.sql.transaction(async (tx) => {
      const [tenant] = await tx.query<{ admins_issue_tokens: boolean }>(
        "select admins_issue_tokens from tenants where id = $1 for share",
        [tenantId],
      );
      if (!tenant) throw new UnknownTenantError(tenantId);
      if (by.role === "tenant" && !tenant.admins_issue_tokens) {
        throw new AccessDeniedError("the operator has not allowed this tenant's admins to issue tokens");
      }
      const [row] = await tx.query<TokenRow>(
        `insert into admin_tokens (id, tenant_id, token_hash, name, token_start, expires_at)
         values ($1, $2, $3, $4, $5, $6) returning ${tokenColumns}`,
        [tokenId, tenantId, hashToken(token), name, tokenStart(token), expiresAt ?? null],
      );
      const fields = expiresAt === undefined ? ["name"] : ["name", "expiresAt"];
      await this.audit.record(tx, { tenantId, actor: by, action: "token.issue", target: tokenId, detail: { fields } });
      return { ...toTokenRecord(row as TokenRow), token };
    });
  }

  /** The tenant's admin tokens, newest first, without their secrets. */
  async list(by: Principal, tenantId: string): Promise<TokenRecord[]> {
    assertTenantAccess(by, tenantId);
    const rows = await this.sql.query<TokenRow>(
      `select ${tokenColumns} from admin_tokens where tenant_id = $1 order by created_at desc, id`,
      [tenantId],
    );
    return rows.map(toTokenRecord);
  }

  /** Deletes the token: the next request carrying it is refused, on every instance. False when there is none. */
  async revoke(by: Principal, tenantId: string, tokenId: string): Promise<boolean> {
    assertTenantAccess(by, tenantId);
    return this.sql.transaction(async (tx) => {
      const rows = await tx.query("delete from admin_tokens where id = $1 and tenant_id = $2 returning id", [
        tokenId,
        tenantId,
      ]);
      if (rows.length === 0) return false;
      await this.audit.record(tx, { tenantId, actor: by, action: "token.revoke", target: tokenId });
      return true;
    });
  }

  /**
   * Who holds this bearer token, or undefined. One statement both finds an unexpired tenant token and records its
   * last use, and reads the operator token's hash; a slow operator hash is computed once per process for the bearer
   * that matched it, not on every request.
   */
  async authenticate(bearer: string): Promise<Principal | undefined> {
    if (bearer.length === 0 || bearer.length > maxBearerLength) return undefined;
    const fastHash = hashToken(bearer);
    const rows = await this.sql.query<{
      token_id: string | null;
      tenant_id: string | null;
      operator_hash: string | null;
    }>(
      `with tenant_token as (
         update admin_tokens set last_used_at = now()
         where token_hash = $1 and (expires_at is null or expires_at > now()) returning id, tenant_id
       )
       select id as token_id, tenant_id, null::text as operator_hash from tenant_token
       union all
       select null, null, token_hash from operator_token`,
      [fastHash],
    );
    const tenant = rows.find((row) => row.token_id !== null);
    if (tenant?.token_id && tenant.tenant_id) {
      return { role: "tenant", tenantId: tenant.tenant_id, tokenId: tenant.token_id };
    }
    const stored = rows.find((row) => row.operator_hash !== null)?.operator_hash;
    if (!stored) return undefined;
    if (this.verifiedOperator.get(fastHash) === stored) return { role: "operator" };
    if (!(await tokenMatches(bearer, stored))) return undefined;
    this.verifiedOperator.clear();
    this.verifiedOperator.set(fastHash, stored);
    return { role: "operator" };
  }
}
