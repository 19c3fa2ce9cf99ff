import { z } from "zod";

export const teamsAppTypes = ["MultiTenant", "SingleTenant"] as const;

/** An Entra tenant as a login authority names it: its GUID, or one of its verified domains (contoso.onmicrosoft.com). */
const tenantGuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const tenantDomain = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const isEntraTenant = (value: string) => tenantGuid.test(value) || tenantDomain.test(value);

/** One bot registration (Azure Bot / Entra app) per workspace. */
export const teamsCredentialsSchema = z
  .object({
    appId: z.string().trim().min(1),
    appPassword: z.string().min(1),
    /** Absent: MultiTenant, as botbuilder assumes. */
    appType: z.enum(teamsAppTypes).optional(),
    /** The app's home tenant; its token authority when the app is SingleTenant. */
    appTenantId: z.string().trim().refine(isEntraTenant, "must be a tenant GUID or a verified domain").optional(),
  })
  .strict()
  .refine((credentials) => credentials.appType !== "SingleTenant" || credentials.appTenantId !== undefined, {
    message: "appTenantId is required for a SingleTenant app",
    path: ["appTenantId"],
  });

export type TeamsCredentials = z.infer<typeof teamsCredentialsSchema>;
