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
    // Token rotation: the refresh token (single-use) that buys the next bot token, and when this one expires.
    botRefreshToken: z
      .string()
      .trim()
      .regex(/^xoxe-[A-Za-z0-9-]{8,}$/, "botRefreshToken must be a refresh token starting with xoxe-")
      .optional(),
    // A form sends it as text; the API may send a number.
    botTokenExpiresAt: z.coerce
      .number()
      .int("botTokenExpiresAt must be a time in epoch milliseconds")
      .positive("botTokenExpiresAt must be a time in epoch milliseconds")
      .optional(),
  })
  .strict()
  .refine((c) => c.signingSecret !== undefined || c.appToken !== undefined, {
    message: "give signingSecret (events over HTTP) or appToken (Socket Mode)",
    path: ["signingSecret"],
  })
  .refine((c) => c.botTokenExpiresAt === undefined || c.botRefreshToken !== undefined, {
    message: "a botTokenExpiresAt needs the botRefreshToken that renews the token",
    path: ["botRefreshToken"],
  });

export type SlackCredentials = z.infer<typeof slackCredentialsSchema>;

/**
 * The credentials of a workspace installed with "Add to Slack": no signing secret of its own (the app's verifies its
 * events) and the token set oauth.v2.access granted. With token rotation on, also the refresh token and the moment
 * (epoch ms) the bot token expires, from `expires_in`.
 */
export interface SlackInstallationCredentials {
  botToken: string;
  botRefreshToken?: string;
  botTokenExpiresAt?: number;
}
