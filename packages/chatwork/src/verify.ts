import { createHmac, timingSafeEqual } from "node:crypto";
import { type InboundRequest, singleHeader, VerificationError } from "@resident/core";

/** base64 of a 32-byte HMAC-SHA256 digest. */
const signatureFormat = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Chatwork's webhook signature: base64(HMAC-SHA256(key = base64-decoded webhook token, raw body bytes)),
 * compared in constant time. A signature in any other format is simply not valid.
 */
export function verifyChatworkSignature(rawBody: Buffer | string, signature: string, webhookToken: string): boolean {
  if (!signatureFormat.test(signature)) return false;
  const expected = createHmac("sha256", Buffer.from(webhookToken, "base64")).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, "base64"));
}

/**
 * Throws VerificationError unless one of the workspace's webhook tokens signed the delivery. Chatwork sends the
 * signature both as the x-chatworkwebhooksignature header and as the chatwork_webhook_signature query parameter;
 * either is enough.
 */
export function verifyDelivery(request: InboundRequest, webhookTokens: readonly string[]): void {
  const signatures = presentedSignatures(request);
  if (signatures.length === 0) throw new VerificationError("missing Chatwork webhook signature");
  // Every pair is checked, so the time taken does not tell which token matched.
  let valid = false;
  for (const signature of signatures) {
    for (const token of webhookTokens) valid = verifyChatworkSignature(request.rawBody, signature, token) || valid;
  }
  if (!valid) throw new VerificationError("invalid Chatwork webhook signature");
}

function presentedSignatures(request: InboundRequest): string[] {
  const header = [singleHeader(request.headers, "x-chatworkwebhooksignature")];
  // A query parser reads an unescaped "+" of the base64 signature as a space.
  const query = [request.query.chatwork_webhook_signature].flat().map((value) => value?.replaceAll(" ", "+"));
  return [...header, ...query].filter((value): value is string => typeof value === "string" && value !== "");
}
