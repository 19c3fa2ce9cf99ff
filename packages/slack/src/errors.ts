import {
  connectionErrorCode,
  failedBeforeSending,
  InvalidCredentialsError,
  OutcomeUnknownError,
  PermanentSendError,
  RateLimitedError,
  SendRejectedError,
  StreamEndedError,
} from "@resident/core";
import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from "@slack/web-api";

/** Slack documents these as "it's possible some aspect of the operation succeeded before the error was raised". */
const maybeApplied = new Set(["internal_error", "fatal_error"]);
/** Slack being unwell, which says nothing about the token. */
const slackSideFailures = new Set([...maybeApplied, "service_unavailable"]);
/**
 * Refusals that the same post will meet again however often it is retried: the bot is not in the channel, the
 * channel is gone or archived, the token or its workspace lost access. Slack documents them per method.
 */
const refusedForGood = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "missing_scope",
  "no_permission",
  "team_access_not_granted",
  "ekm_access_denied",
  "restricted_action",
  "restricted_action_read_only_channel",
  "restricted_action_thread_only_channel",
  "restricted_action_non_threadable_channel",
]);

/**
 * Maps what @slack/web-api threw for a post to core's send errors: was anything posted? A 429 or a refusal posted
 * nothing; a timeout, a 5xx, a reset connection or Slack's own internal failure may have.
 */
export function toSendError(error: unknown, method: string): Error {
  // Already core's verdict: the bot token's refresh failed before the call was made.
  if (error instanceof SendRejectedError || error instanceof RateLimitedError) return error;
  if (error instanceof WebAPIRateLimitedError) return new RateLimitedError(error.retryAfter * 1000);
  if (error instanceof WebAPIPlatformError) {
    const code = String(error.data.error);
    if (code === "message_not_in_streaming_state") return new StreamEndedError(`Slack ended the stream (${method})`);
    if (maybeApplied.has(code)) return new OutcomeUnknownError(`Slack failed ${method} (${code}); it may have posted`);
    // The client reports a 200 whose body is not Slack's JSON (a proxy's page) as ok:false with the text itself.
    if (!/^[a-z0-9_]+$/.test(code)) return new OutcomeUnknownError(`unreadable answer from Slack for ${method}`);
    if (refusedForGood.has(code)) return new PermanentSendError(`Slack refused ${method}: ${code}`);
    return new SendRejectedError(`Slack refused ${method}: ${code}`);
  }
  if (error instanceof WebAPIHTTPError) {
    if (error.statusCode >= 500) {
      return new OutcomeUnknownError(`Slack answered ${method} with HTTP ${error.statusCode}; it may have posted`);
    }
    return new SendRejectedError(`Slack refused ${method} with HTTP ${error.statusCode}`);
  }
  if (error instanceof WebAPIRequestError && failedBeforeSending(error.original)) {
    return new SendRejectedError(`could not connect to Slack for ${method}: ${connectionErrorCode(error.original)}`);
  }
  // A timeout or a connection reset: the request may have been written and acted on before the answer was lost.
  return new OutcomeUnknownError(`no answer from Slack for ${method}: ${describe(error)}`);
}

/** Maps what auth.test threw: only Slack's verdict on the token is an InvalidCredentialsError. */
export function toConnectError(error: unknown, token = "bot token"): Error {
  if (error instanceof WebAPIRateLimitedError) return new RateLimitedError(error.retryAfter * 1000);
  if (error instanceof WebAPIPlatformError && !slackSideFailures.has(String(error.data.error))) {
    return new InvalidCredentialsError(`Slack refused the ${token}: ${error.data.error}`);
  }
  return new Error(`could not check the ${token} with Slack: ${describe(error)}`, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof WebAPIRequestError) return `${error.original.name}: ${error.original.message}`;
  return error instanceof Error ? error.message : String(error);
}
