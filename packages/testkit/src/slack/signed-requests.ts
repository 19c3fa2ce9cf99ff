import { createHmac } from "node:crypto";
import type { InboundRequest } from "@resident/core";

export interface SlackSigningOptions {
  signingSecret: string;
  /** An Events API body: an object is sent as JSON, a string or Buffer exactly as given. */
  body: unknown;
  /** Epoch seconds; default now. */
  timestamp?: number;
  /** Set on a redelivery, as Slack does: X-Slack-Retry-Num (1–3) and X-Slack-Retry-Reason. */
  retryNum?: number;
  retryReason?: string;
  /** Default application/json (the Events API); interactions come form-encoded. */
  contentType?: string;
}

/** What Slack would POST: the raw body and its headers, signed v0 with the app's signing secret. */
export interface SignedSlackRequest extends InboundRequest {
  rawBody: Buffer;
  headers: Record<string, string>;
}

/**
 * Signs a delivery the way Slack does. The HMAC is computed here rather than borrowed from @resident/slack, so a
 * fault in the adapter's verifier cannot hide behind the same fault in the signer.
 */
export function signSlackRequest(options: SlackSigningOptions): SignedSlackRequest {
  const { signingSecret, body, retryNum, retryReason, contentType = "application/json" } = options;
  const rawBody = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest("hex");
  return {
    rawBody,
    headers: {
      "content-type": contentType,
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": `v0=${signature}`,
      ...(retryNum === undefined ? {} : { "x-slack-retry-num": String(retryNum) }),
      ...(retryReason === undefined ? {} : { "x-slack-retry-reason": retryReason }),
    },
    query: {},
  };
}
