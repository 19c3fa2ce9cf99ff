import { AccessDeniedError } from "./errors.ts";

/** Who is calling, as `AdminTokens.authenticate` found it. */
export type Principal = { role: "operator" } | { role: "tenant"; tenantId: string; tokenId: string };

/** The name written to the audit log. Start-up work (the server itself) is "system". */
export type Actor = Principal | "system";

export function actorName(actor: Actor): string {
  if (actor === "system") return "system";
  return actor.role === "operator" ? "operator" : actor.tokenId;
}

export function assertOperator(principal: Principal): void {
  if (principal.role !== "operator") throw new AccessDeniedError("only the operator may do this");
}

/** The operator may act on any tenant; a tenant admin only on its own. */
export function assertTenantAccess(principal: Principal, tenantId: string): void {
  if (principal.role === "tenant" && principal.tenantId !== tenantId) {
    throw new AccessDeniedError("a tenant admin token acts on its own tenant only");
  }
}
