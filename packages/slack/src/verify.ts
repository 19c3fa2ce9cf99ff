import { createHmac, timingSafeEqual } from "node:crypto";
import { type InboundRequest, singleHeader, VerificationError } from "@resident/core";

/** Slack's replay window: a request more than five minutes from our clock, either way, is refused. */
const windowSeconds = 300;

/**
 * Checks Slack's v0 request signature: HMAC-SHA256 of `v0:{timestamp}:{raw body}` under the app's signing secret,
 * compared in constant time, with the timestamp inside the window around `now` (epoch ms). Throws
 * VerificationError; its message never carries the secret or the expected signature.
 */
export function verifyDelivery(
  request: Pick<InboundRequest, "rawBody" | "headers">,
  signingSecret: string,
  now: number,
): void {
  const timestamp = singleHeader(request.headers, "x-slack-request-timestamp");
  const signature = singleHeader(request.headers, "x-slack-signature");
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) {
    throw new VerificationError("missing or malformed X-Slack-Request-Timestamp header");
  }
  if (!signature) throw new VerificationError("missing X-Slack-Signature header");
  if (!signature.startsWith("v0=")) throw new VerificationError("unsupported X-Slack-Signature version");
  if (Math.abs(now / 1000 - Number(timestamp)) > windowSeconds) {
    throw new VerificationError("X-Slack-Request-Timestamp is outside the 5-minute window");
  }

  const expected = Buffer.from(
    `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:`).update(request.rawBody).digest("hex")}`,
  );
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new VerificationError("X-Slack-Signature does not match the body");
  }
}
