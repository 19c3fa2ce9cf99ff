import { z } from "zod";

const apiToken = z.string().trim().min(1);
/** Chatwork shows webhook tokens base64-encoded; the signature key is the decoded bytes. */
const webhookToken = z.base64().min(1);

/**
 * What an admin gives for a Chatwork workspace: the bot account's API token and the token of every webhook that
 * points at the workspace (the account webhook and each room webhook), normalized to a list.
 */
export const chatworkCredentialsSchema = z.union([
  z
    .strictObject({ apiToken, webhookToken })
    .transform(({ apiToken, webhookToken }) => ({ apiToken, webhookTokens: [webhookToken] })),
  z.strictObject({ apiToken, webhookTokens: z.array(webhookToken).min(1) }),
]);

export type ChatworkCredentials = z.output<typeof chatworkCredentialsSchema>;
