import type { InboundRequest } from "@resident/core";

/** A header that must appear once; a repeated one is as good as absent (Node lowercases header names). */
export function singleHeader(headers: InboundRequest["headers"], name: string): string | undefined {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
}
