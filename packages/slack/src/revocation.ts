import { parsePayload } from "@resident/core";
import { z } from "zod";

const tokensRevokedSchema = z.object({
  type: z.literal("tokens_revoked"),
  tokens: z.object({ oauth: z.array(z.string()).optional(), bot: z.array(z.string()).optional() }),
});

/**
 * Why Slack took our access to the workspace away, when the event says it did: the app uninstalled, or its bot
 * token revoked. A revocation of user tokens only leaves the bot's (the one we use) working, so it is not one.
 */
export function revocationOf(event: { type: string }): string | undefined {
  if (event.type === "app_uninstalled") return "app_uninstalled: the app was removed from the Slack workspace";
  if (event.type !== "tokens_revoked") return undefined;
  const { tokens } = parsePayload(tokensRevokedSchema, event, "tokens_revoked event");
  return (tokens.bot?.length ?? 0) > 0 ? "tokens_revoked: the app's bot token was revoked" : undefined;
}
