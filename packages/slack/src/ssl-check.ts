import { type InboundRequest, singleHeader } from "@resident/core";

/**
 * Slack's certificate probe: a form-encoded `ssl_check=1` POST. Like bolt-js, it is answered 200 without a
 * signature check (Slack does not promise to sign it); it carries nothing and changes nothing.
 */
export function isSslCheck(request: Pick<InboundRequest, "rawBody" | "headers">): boolean {
  const contentType = singleHeader(request.headers, "content-type") ?? "";
  if (!contentType.startsWith("application/x-www-form-urlencoded")) return false;
  return new URLSearchParams(request.rawBody.toString("utf8")).get("ssl_check") === "1";
}
