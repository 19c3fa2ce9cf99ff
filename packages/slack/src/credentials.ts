import { z } from "zod";

/**
 * What an admin gives for a Slack workspace: the app's bot token (OAuth & Permissions), and how events arrive: the
 * signing secret (Basic Information) for the Events API over HTTP, and/or an app-level token (`xapp-`, scope
 * connections:write) for Socket Mode. Messages name the field, never its value.
 */
export const slackCredentialsSchema = z
  .object({
    signingSecret: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{16,128}$/, "signingSecret must be the app's signing secret (letters and digits)")
      .optional(),
    appToken: z
      .string()
      .trim()
      .regex(/^xapp-[A-Za-z0-9-]{8,}$/, "appToken must be an app-level token starting with xapp-")
      .optional(),
    botToken: z
      .string()
      .trim()
      // Rotating tokens carry an xoxe. prefix in front of the usual xoxb-.
      .regex(/^(xoxe\.)?xoxb-[A-Za-z0-9-]{8,}$/, "botToken must be a bot token starting with xoxb-"),
  })
  .strict()
  .refine((c) => c.signingSecret !== undefined || c.appToken !== undefined, {
    message: "give signingSecret (events over HTTP) or appToken (Socket Mode)",
    path: ["signingSecret"],
  });

export type SlackCredentials = z.infer<typeof slackCredentialsSchema>;
