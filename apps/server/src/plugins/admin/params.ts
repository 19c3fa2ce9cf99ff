import { z } from "zod";

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
export const tenantParams = z.object({ tenantId: id });
export const workspaceParams = z.object({ tenantId: id, workspaceId: id });
