import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface RecordedCall {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The values of the route's `:name` segments, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  rawBody: string;
  /** The body parsed as JSON or as a form, whichever its content type says. */
  body: unknown;
  at: number;
  /** The status the fake answered with. */
  status?: number;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** A page for a browser, sent as it is instead of `body`. */
  html?: string;
  /** Written piece by piece as it is produced, instead of `body` (server-sent events); its headers name the type. */
  stream?: AsyncIterable<string>;
}

export type RouteHandler = (call: RecordedCall) => FakeResponse | Promise<FakeResponse>;

/**
 * What a fake does instead of, or around, its normal answer:
 * - `respond`: answer this instead, without doing the work (a 500, a 429 with Retry-After, an error body);
 * - `stallMs`: wait before doing the work (a slow platform or LLM); `Infinity` waits until `clearFaults`;
 * - `delayAnswerMs`: do the work, then wait before answering (a post that lands but whose answer times out).
 */
export type Fault = { respond: FakeResponse } | { stallMs: number } | { delayAnswerMs: number };

/**
 * A real HTTP server on 127.0.0.1 that records every call, for the outside platforms' APIs. Routes are
 * "METHOD /path", where a `:name` segment matches any one segment ("POST /rooms/:roomId/messages"); faults are
 * queued per concrete route ("POST /rooms/42/messages") and used up one call at a time (or held until cleared).
 */
export class FakeServer {
  readonly calls: RecordedCall[] = [];
  private readonly server: Server;
  private readonly routes: { match: RouteMatcher; handler: RouteHandler }[];
  private readonly faults = new Map<string, { fault: Fault; times: number }[]>();
  private releaseStalls = () => {};
  private stallsReleased = new Promise<void>((resolve) => {
    this.releaseStalls = resolve;
  });
  private baseUrl = "";

  constructor(routes: Record<string, RouteHandler>) {
    this.routes = Object.entries(routes).map(([route, handler]) => ({ match: compileRoute(route), handler }));
    this.server = createServer((req, res) => {
      this.serve(req, res).catch((error) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(error) }));
      });
    });
  }

  async start(port = 0): Promise<this> {
    this.baseUrl = await listenOnLoopback(this.server, port);
    return this;
  }

  /** http://127.0.0.1:<port> */
  get url(): string {
    return this.baseUrl;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** Applies `fault` to the next `times` calls of `route` (default: until `clearFaults`). */
  fault(route: string, fault: Fault, times = Number.POSITIVE_INFINITY): this {
    const queue = this.faults.get(route) ?? [];
    queue.push({ fault, times });
    this.faults.set(route, queue);
    return this;
  }

  clearFaults(): this {
    this.faults.clear();
    this.releaseStalls();
    this.stallsReleased = new Promise((resolve) => {
      this.releaseStalls = resolve;
    });
    return this;
  }

  /** Recorded calls of one route ("POST /api/chat.postMessage"). */
  callsTo(route: string): RecordedCall[] {
    return this.calls.filter((call) => `${call.method} ${call.path}` === route);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const call = await record(req);
    this.calls.push(call);
    const route = `${call.method} ${call.path}`;
    const handler = this.findHandler(route, call);
    const fault = this.takeFault(route);
    let response: FakeResponse;
    if (!handler) response = { status: 404, body: { error: `no route ${route}` } };
    else if (fault && "respond" in fault) response = fault.respond;
    else {
      if (fault && "stallMs" in fault) {
        await (Number.isFinite(fault.stallMs) ? sleep(fault.stallMs) : this.stallsReleased);
      }
      response = await handler(call);
      if (fault && "delayAnswerMs" in fault) await sleep(fault.delayAnswerMs);
    }
    if (response.stream) return this.stream(call, response, res);
    call.status = response.status;
    if (res.destroyed) return;
    if (response.html !== undefined) {
      res.writeHead(response.status, { "content-type": "text/html; charset=utf-8", ...response.headers });
      res.end(response.html);
      return;
    }
    const body = response.body === undefined ? "" : JSON.stringify(response.body);
    res.writeHead(response.status, { "content-type": "application/json; charset=utf-8", ...response.headers });
    res.end(body);
  }

  /** Writes a streamed answer as it is produced; its status is recorded once the whole stream is written. */
  private async stream(call: RecordedCall, response: FakeResponse, res: ServerResponse): Promise<void> {
    res.writeHead(response.status, response.headers);
    for await (const piece of response.stream ?? []) {
      if (res.destroyed) return;
      res.write(piece);
    }
    call.status = response.status;
    res.end();
  }

  private findHandler(route: string, call: RecordedCall): RouteHandler | undefined {
    for (const { match, handler } of this.routes) {
      const params = match(route);
      if (params) {
        call.params = params;
        return handler;
      }
    }
    return undefined;
  }

  private takeFault(route: string): Fault | undefined {
    const queue = this.faults.get(route);
    const next = queue?.[0];
    if (!queue || !next) return undefined;
    if (--next.times <= 0) queue.shift();
    return next.fault;
  }
}

async function record(req: IncomingMessage): Promise<RecordedCall> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString("utf8");
  const url = new URL(req.url ?? "/", "http://fake");
  return {
    method: req.method ?? "GET",
    path: url.pathname,
    params: {},
    query: url.searchParams,
    headers: req.headers,
    rawBody,
    body: parseBody(rawBody, req.headers["content-type"]),
    at: Date.now(),
  };
}

type RouteMatcher = (route: string) => Record<string, string> | undefined;

function compileRoute(pattern: string): RouteMatcher {
  const names: string[] = [];
  const source = pattern
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(segment.slice(1));
      return "([^/]+)";
    })
    .join("/");
  const regex = new RegExp(`^${source}$`);
  return (route) => {
    const match = regex.exec(route);
    if (!match) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]));
  };
}

function parseBody(raw: string, contentType = ""): unknown {
  if (raw === "") return undefined;
  if (contentType.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Listens on 127.0.0.1 (`port` 0: any free one) and resolves to the server's base URL, http://127.0.0.1:<port>. */
export async function listenOnLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and every connection it holds. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
