import type { InboundRequest } from "./ports/platform-adapter.ts";

/**
 * The one policy for a delivery's headers: a header the platform sends once is read only when it came once. Sent
 * twice, it is as good as absent, since which copy the platform wrote cannot be told (Node lowercases the names).
 */
export function singleHeader(headers: InboundRequest["headers"], name: string): string | undefined {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
}
