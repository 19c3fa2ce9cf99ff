import { z } from "zod";

export const teamsAppTypes = ["MultiTenant", "SingleTenant"] as const;

/** One bot registration (Azure Bot / Entra app) per workspace. */
export const teamsCredentialsSchema = z
  .object({
    appId: z.string().trim().min(1),
    appPassword: z.string().min(1),
    /** Absent: MultiTenant, as botbuilder assumes. */
    appType: z.enum(teamsAppTypes).optional(),
    /** The app's home tenant; its token authority when the app is SingleTenant. */
    appTenantId: z.string().trim().min(1).optional(),
  })
  .strict()
  .refine((credentials) => credentials.appType !== "SingleTenant" || credentials.appTenantId !== undefined, {
    message: "appTenantId is required for a SingleTenant app",
    path: ["appTenantId"],
  });

export type TeamsCredentials = z.infer<typeof teamsCredentialsSchema>;
