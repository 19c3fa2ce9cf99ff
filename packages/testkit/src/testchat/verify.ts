import { createHmac, timingSafeEqual } from "node:crypto";
import { type InboundRequest, singleHeader, VerificationError } from "@resident/core";

export const signatureHeader = "x-testchat-signature";

/** hex(HMAC-SHA256(signing secret, raw body)). */
export function testchatSignature(rawBody: Buffer | string, signingSecret: string): string {
  return createHmac("sha256", signingSecret).update(rawBody).digest("hex");
}

/** Throws VerificationError unless the delivery carries the body's signature under the workspace's secret. */
export function verifyDelivery(request: InboundRequest, signingSecret: string): void {
  const given = singleHeader(request.headers, signatureHeader);
  if (!given) throw new VerificationError(`missing ${signatureHeader} header`);
  const expected = Buffer.from(testchatSignature(request.rawBody, signingSecret));
  const presented = Buffer.from(given);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new VerificationError(`${signatureHeader} does not match the body`);
  }
}
