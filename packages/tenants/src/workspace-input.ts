import {
  credentialFields,
  issueLines,
  type Platform,
  plainText,
  type WorkspaceSettingsInput,
  workspaceSettingsSchema,
} from "@resident/core";
import { type ZodType, z } from "zod";
import { InvalidInputError } from "./errors.ts";

const name = plainText().trim().min(1).max(200);
/** Shape only: the server checks credentials against the platform adapter's schema before they reach us. */
const credentials = credentialFields.refine((fields) => Object.keys(fields).length > 0, "must have at least one field");
const identity = z.record(z.string(), plainText());

/*
 * The one schema of each admin input: the admin API validates its bodies with these, and the registry checks again
 * with the same ones (plus the bot identity the server learnt from the platform, which no admin gives).
 */

/** A new tenant (POST /admin/api/tenants). */
export const tenantInputSchema = z.object({ name }).strict();
export const tenantPatchSchema = z
  .object({ name: name.optional(), adminsMayIssueTokens: z.boolean().optional() })
  .strict();

/** A new workspace as an admin gives it, of one of the platforms the service serves (their descriptors' ids). */
export const newWorkspaceSchema = (platforms: readonly Platform[]) =>
  z
    .object({
      platform: z.enum(platforms),
      name,
      credentials,
      settings: workspaceSettingsSchema.default({}),
    })
    .strict();

/** A change to a workspace as an admin gives it (PATCH). */
export const workspaceChangeSchema = z
  .object({
    name: name.optional(),
    credentials: credentials.optional(),
    /** Merged into the stored settings; see mergeSettings. */
    settings: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const workspaceInputSchema = (platforms: readonly Platform[]) =>
  newWorkspaceSchema(platforms).extend({ identity: identity.default({}) });

export const workspacePatchSchema = workspaceChangeSchema.extend({ identity: identity.optional() });

export type TenantInput = z.input<typeof tenantInputSchema>;
export type TenantPatch = z.input<typeof tenantPatchSchema>;
export type WorkspaceInput = z.input<ReturnType<typeof workspaceInputSchema>>;
export type WorkspacePatch = z.input<typeof workspacePatchSchema>;

/** Zod's messages name the rule broken, not the value given, so no credential can leak through an error. */
export function parseInput<T>(schema: ZodType<T>, input: unknown, root = "input"): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidInputError(issueLines(result.error, root));
}

/** The names of the credential fields that hold something. */
export function setFieldNames(fields: Record<string, unknown>): string[] {
  return Object.entries(fields)
    .filter(([, value]) => value !== null && value !== "")
    .map(([key]) => key);
}

const settingNames = new Set(Object.keys(workspaceSettingsSchema.shape));

/** A JSON merge patch (RFC 7396) of the settings: a value sets a field, null removes it (back to the default). */
export function mergeSettings(stored: WorkspaceSettingsInput, patch: Record<string, unknown>): WorkspaceSettingsInput {
  const unknown = Object.keys(patch).filter((key) => !settingNames.has(key));
  if (unknown.length > 0) throw new InvalidInputError(unknown.map((key) => `settings.${key}: unknown setting`));
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return parseInput(workspaceSettingsSchema, merged, "settings");
}
