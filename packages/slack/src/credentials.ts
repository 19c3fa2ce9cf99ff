import { z } from "zod";

/**
 * What an admin gives for a Slack workspace: the app's signing secret (Basic Information) and its bot token
 * (OAuth & Permissions). Messages name the field, never its value.
 */
export const slackCredentialsSchema = z
  .object({
    signingSecret: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{16,128}$/, "signingSecret must be the app's signing secret (letters and digits)"),
    botToken: z
      .string()
      .trim()
      // Rotating tokens carry an xoxe. prefix in front of the usual xoxb-.
      .regex(/^(xoxe\.)?xoxb-[A-Za-z0-9-]{8,}$/, "botToken must be a bot token starting with xoxb-"),
  })
  .strict();

export type SlackCredentials = z.infer<typeof slackCredentialsSchema>;
