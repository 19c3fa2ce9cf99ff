import { z } from "zod";

/** What an admin gives for a Testchat workspace: the bot's API token and the webhook's signing secret. */
export const testchatCredentialsSchema = z.strictObject({
  apiToken: z.string().min(8),
  signingSecret: z.string().min(16),
});

export type TestchatCredentials = z.infer<typeof testchatCredentialsSchema>;
