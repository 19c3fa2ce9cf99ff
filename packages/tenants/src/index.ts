export { AdminTokens, type IssuedToken, type TokenInput, type TokenRecord } from "./admin-tokens.ts";
export type { AuditDetail, AuditEntry } from "./audit-log.ts";
export { BudgetRegistry, type TenantBudgets } from "./budget-registry.ts";
export { CachingDirectory, type CachingDirectoryOptions } from "./caching-directory.ts";
export { CredentialCipher } from "./credential-cipher.ts";
export {
  AccessDeniedError,
  InvalidInputError,
  InvalidSecretKeyError,
  UnknownTenantError,
  UnreadableCiphertextError,
  WrongSecretKeyError,
} from "./errors.ts";
export { PgFeedbackLedger } from "./feedback-ledger.ts";
export { InstallationRegistry, InstallationTakenError } from "./installation-registry.ts";
export { createTenants, openDatabase, openTenants, type Tenants, type TenantsOptions } from "./open-tenants.ts";
export type { Principal } from "./principal.ts";
export { loadSecretKey, type SecretKeySource } from "./secret-key.ts";
export { tokenPrefix, tokenStart } from "./secret-token.ts";
export type { SqlClient, SqlExecutor } from "./sql-client.ts";
export { StoredCredentials } from "./stored-credentials.ts";
export { type TenantRecord, TenantRegistry } from "./tenant-registry.ts";
export { type ToolServerInput, toolServerInputSchema } from "./tool-server-input.ts";
export { type ToolServerRecord, ToolServerRegistry } from "./tool-server-registry.ts";
export {
  newWorkspaceSchema,
  type TenantInput,
  type TenantPatch,
  tenantInputSchema,
  tenantPatchSchema,
  type WorkspaceInput,
  type WorkspacePatch,
  workspaceChangeSchema,
} from "./workspace-input.ts";
export type { WorkspaceRecord } from "./workspace-row.ts";
