import type { RotatingTokens, Workspace } from "@resident/core";
import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import type { SlackClients } from "./api.ts";
import type { SlackCredentials } from "./credentials.ts";

/** Runs Web API calls for one workspace with its bot token; see BotCalls. */
export type BotCall = <T>(run: (client: WebClient) => Promise<T>) => Promise<T>;

/** What Slack answers a rotated token with once it has expired, or with a token it no longer knows. */
const refusedTokens = new Set(["token_expired", "invalid_auth"]);

/**
 * Every call made with a workspace's bot token goes through here: the token is refreshed before it expires (once
 * across the cluster), and a token Slack refuses before its time (a clock apart from Slack's, a refresh done
 * elsewhere) is refreshed the same way and the call made once more. A refused call posted nothing, so the one
 * retry cannot double a message.
 */
export class BotCalls {
  constructor(
    private readonly clients: SlackClients,
    private readonly tokens: RotatingTokens<SlackCredentials>,
  ) {}

  for(workspace: Workspace<SlackCredentials>): BotCall {
    return async (run) => {
      const token = await this.tokens.token(workspace);
      try {
        return await run(this.clients.for(token));
      } catch (error) {
        if (!(error instanceof WebAPIPlatformError && refusedTokens.has(String(error.data.error)))) throw error;
        const fresh = await this.tokens.refused(workspace, token);
        if (!fresh) throw error;
        return run(this.clients.for(fresh));
      }
    };
  }
}
