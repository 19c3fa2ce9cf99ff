import type { Context } from "../context.ts";

/** A tenant admin knows its tenant's name from sign-in; the operator asks. */
export async function tenantName(context: Context, tenantId: string): Promise<string> {
  const { me } = context;
  if (me.role === "tenant" && me.tenantId === tenantId) return me.tenantName;
  return (await context.api.tenant(tenantId)).name;
}
