import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { BufferedResponse } from "./buffered-response.ts";

const pools = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };

/**
 * `fetch` for the platforms' and the LLM's SDKs (both take one), on node's http client and a keep-alive pool per
 * protocol. The SDKs' calls carry a string, form or byte body to one URL; for those it does what fetch does at about
 * half fetch's CPU (no Request object, no body streams or their tee, no fetch controller: `npm run bench:clients`).
 * An answer is read whole before it resolves (a BufferedResponse), but an event stream (the LLM's streamed answer)
 * comes as a Response whose body streams. A network
 * failure rejects as fetch's does (a TypeError whose cause carries the code), an abort with the signal's reason, a
 * redirect under `redirect: "error"` as a network failure. A redirect to follow is asked again of the global fetch,
 * and so is anything else (a Request, a stream or multipart body).
 */
export const leanFetch: typeof fetch = async (input, init = {}) => {
  const { body, signal, redirect } = init;
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const pool = url === undefined ? undefined : pools[url.slice(0, url.indexOf(":") + 1) as keyof typeof pools];
  const lean =
    body == null || typeof body === "string" || body instanceof Uint8Array || body instanceof URLSearchParams;
  if (url === undefined || pool === undefined || !lean) return fetch(input, init);
  signal?.throwIfAborted();
  const res = await send(url, pool, init.method ?? "GET", init.headers, body, signal ?? undefined);
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && res.headers.location !== undefined && redirect !== "manual") {
    res.resume();
    if (redirect === "error") throw new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
    return fetch(input, init);
  }
  const headers = new Headers(pairs(res.rawHeaders));
  const statusText = res.statusMessage ?? "";
  if (res.headers["content-type"]?.startsWith("text/event-stream")) {
    signal?.addEventListener("abort", () => res.destroy(signal.reason as Error), { once: true });
    const response = new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, statusText, headers });
    Object.defineProperty(response, "url", { value: url });
    return response;
  }
  const bytes = status === 204 || status === 304 ? null : await read(res, signal ?? undefined);
  // What the SDKs read of a Response, as one (BufferedResponse): the cast is the only place it is told apart.
  return new BufferedResponse(bytes, status, statusText, headers, url) as unknown as Response;
};

type LeanBody = string | Uint8Array | URLSearchParams | null | undefined;

function send(
  url: string,
  agent: HttpAgent,
  method: string,
  headers: HeadersInit | undefined,
  body: LeanBody,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const bytes = body instanceof URLSearchParams ? body.toString() : (body ?? undefined);
  const options: RequestOptions = { method, headers: headerRecord(headers, body, bytes), agent };
  return new Promise((resolve, reject) => {
    const req = (agent === pools["https:"] ? httpsRequest : httpRequest)(url, options, (res) => {
      signal?.removeEventListener("abort", abort);
      resolve(res);
    });
    const abort = () => {
      req.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
    req.on("error", (cause) => {
      signal?.removeEventListener("abort", abort);
      reject(new TypeError("fetch failed", { cause }));
    });
    req.end(bytes);
  });
}

function read(res: IncomingMessage, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const abort = () => {
      res.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("end", () => {
      signal?.removeEventListener("abort", abort);
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    res.on("error", (cause) => {
      signal?.removeEventListener("abort", abort);
      reject(new TypeError("terminated", { cause }));
    });
  });
}

/** The request's headers as node's client takes them, with the body's type and length as fetch would add them. */
function headerRecord(headers: HeadersInit | undefined, body: LeanBody, bytes: string | Uint8Array | undefined) {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    record[name] = value;
  });
  if (bytes !== undefined) {
    record["content-length"] = String(typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength);
  }
  if (record["content-type"] === undefined) {
    if (typeof body === "string") record["content-type"] = "text/plain;charset=UTF-8";
    if (body instanceof URLSearchParams) record["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
  }
  return record;
}

/** Node's raw header list, [name, value, name, value, …], as the pairs a Headers takes (repeats kept). */
function pairs(raw: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) result.push([raw[i] as string, raw[i + 1] as string]);
  return result;
}
