import type { InboundRequest } from "@resident/core";

export interface Delivered {
  status: number;
  body: string;
}

/** POSTs a platform delivery (raw bytes and headers, as signed) to `url`, as the platform would. */
export async function deliver(url: string, request: InboundRequest): Promise<Delivered> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const query = new URLSearchParams(
    Object.entries(request.query).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  const response = await fetch(query ? `${url}?${query}` : url, {
    method: "POST",
    headers,
    body: new Uint8Array(request.rawBody),
  });
  return { status: response.status, body: await response.text() };
}
