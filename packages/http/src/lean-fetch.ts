import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import { Agent, type Dispatcher, interceptors, request } from "undici";
import { BufferedResponse } from "./buffered-response.ts";

/**
 * One keep-alive pool per origin, on undici: unlike node's http Agent it honours a server's `Keep-Alive: timeout=`
 * hint, so a request never goes out on a socket the server is about to close (an ECONNRESET there would make a send
 * an unknown outcome). Redirects are followed by the interceptor, per request, as many as fetch follows.
 */
const pool = new Agent().compose(interceptors.redirect());
const fetchRedirectLimit = 20;

/**
 * `fetch` for the platforms' and the LLM's SDKs (both take one), on undici's `request()`. The SDKs' calls carry a
 * string, form or byte body to one URL; for those it does what fetch does at about half fetch's CPU (no Request
 * object, no body streams or their tee, no fetch controller: `npm run bench:clients`). An answer is read whole before
 * it resolves (a BufferedResponse), but an event stream (the LLM's streamed answer) comes as a Response whose body
 * streams. A network failure rejects as fetch's does (a TypeError whose cause carries the code), an abort with the
 * signal's reason, a redirect under `redirect: "error"` as a network failure. Anything else (a Request, a stream or
 * multipart body) is asked of the global fetch.
 */
export const leanFetch: typeof fetch = (input, init) => fetchLean(input, init);

/**
 * leanFetch whose requests give up when no answer has begun within `timeoutMs` of being sent, or its body pauses that
 * long, rejecting as fetch does on a network failure (a TypeError whose cause carries undici's code); what goes to the
 * global fetch, within `timeoutMs` in all. An SDK's own timeout is an AbortSignal.timeout a call, whose timer outlives
 * the call and, firing, builds a DOMException; undici's end with the request, and tick every half second, so a timeout
 * comes up to a second late.
 */
export function leanFetchWithin(timeoutMs: number): typeof fetch {
  return (input, init) => fetchLean(input, init, timeoutMs);
}

/** Without `timeoutMs`, undici's default timers (minutes). */
async function fetchLean(input: RequestInfo | URL, init: RequestInit = {}, timeoutMs?: number): Promise<Response> {
  const { body, signal, redirect = "follow" } = init;
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const lean =
    body == null || typeof body === "string" || body instanceof Uint8Array || body instanceof URLSearchParams;
  if (url === undefined || !(url.startsWith("http:") || url.startsWith("https:")) || !lean) {
    return fetch(input, timeoutMs === undefined ? init : { ...init, signal: within(timeoutMs, signal) });
  }
  signal?.throwIfAborted();
  const answer = await send(url, init.method ?? "GET", init.headers, body, signal ?? undefined, {
    follow: redirect === "follow",
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const { statusCode: status, statusText, body: stream } = answer;
  if (redirect === "error" && status >= 300 && status < 400 && answer.headers.location !== undefined) {
    await stream.dump();
    throw new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
  }
  const headers = responseHeaders(answer.headers);
  const history = (answer.context as { history?: URL[] } | undefined)?.history ?? [];
  const at = history.at(-1)?.href ?? url;
  if (headers.get("content-type")?.startsWith("text/event-stream")) {
    const response = new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
      status,
      statusText,
      headers,
    });
    Object.defineProperties(response, { url: { value: at }, redirected: { value: history.length > 1 } });
    return response;
  }
  const bytes = await read(stream, signal);
  // What the SDKs read of a Response, as one (BufferedResponse): the cast is the only place it is told apart.
  const content = status === 204 || status === 304 ? null : bytes;
  return new BufferedResponse(content, status, statusText, headers, at, history.length > 1) as unknown as Response;
}

type LeanBody = string | Uint8Array | URLSearchParams | null | undefined;

async function send(
  url: string,
  method: string,
  headers: HeadersInit | undefined,
  body: LeanBody,
  signal: AbortSignal | undefined,
  { follow, headersTimeout, bodyTimeout }: { follow: boolean; headersTimeout?: number; bodyTimeout?: number },
): Promise<Dispatcher.ResponseData<unknown>> {
  // The redirect interceptor reads maxRedirections off each request's options; undici 7's types leave it out.
  const options: NonNullable<Parameters<typeof request>[1]> & { maxRedirections: number } = {
    dispatcher: pool,
    method: method as Dispatcher.HttpMethod,
    headers: headerRecord(headers, body),
    body: body instanceof URLSearchParams ? body.toString() : body,
    signal,
    maxRedirections: follow ? fetchRedirectLimit : 0,
    headersTimeout,
    bodyTimeout,
  };
  try {
    return await request(url, options);
  } catch (cause) {
    throw signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause });
  }
}

/** The caller's signal, if any, with a timeout of `timeoutMs` added: for what goes to the global fetch. */
function within(timeoutMs: number, signal: AbortSignal | null | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** The answer's body whole; an abort while it is read rejects with the signal's reason, a broken socket as fetch. */
async function read(stream: Dispatcher.ResponseData["body"], signal: AbortSignal | null | undefined) {
  try {
    // undici's own reader: a few listeners, where an async iterator costs promises and listeners a chunk.
    return await stream.bytes();
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("terminated", { cause });
  }
}

/**
 * The request's headers as undici takes them (names lower-cased, repeats joined as a Headers joins them), with the
 * body's type as fetch would add it (undici adds the length). Not through a new Headers: that checks every name and
 * value character by character, which undici's request() does again anyway (and rejects, as fetch would, what fails).
 */
function headerRecord(headers: HeadersInit | undefined, body: LeanBody) {
  const record: Record<string, string> = {};
  const add = (value: string, name: string) => {
    const key = name.toLowerCase();
    const before = record[key];
    record[key] = before === undefined ? value : `${before}, ${value}`;
  };
  if (headers instanceof Headers) headers.forEach(add);
  else if (Array.isArray(headers)) for (const [name = "", value = ""] of headers) add(value, name);
  else if (headers) for (const [name, value] of Object.entries(headers)) add(value, name);
  if (record["content-type"] === undefined) {
    if (typeof body === "string") record["content-type"] = "text/plain;charset=UTF-8";
    if (body instanceof URLSearchParams) record["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
  }
  return record;
}

/** undici's header record (a repeated header as a list) as a Headers, repeats kept. */
function responseHeaders(record: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}
