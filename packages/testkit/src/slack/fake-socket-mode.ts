import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { FakeResponse, RecordedCall } from "../fake-server.ts";

/** Why the fake (as Slack) asks a connection to go: https://docs.slack.dev/apis/events-api/using-socket-mode */
export type DisconnectReason = "refresh_requested" | "link_disabled" | "too_many_websockets";

/** The envelope types the fake sends: https://docs.slack.dev/apis/events-api/using-socket-mode */
export type EnvelopeType = "events_api" | "interactive";

/** One open Socket Mode connection, as the fake sees it. */
export interface FakeSocketConnection {
  id: string;
  appId: string;
  openedAt: number;
  closedAt?: number;
}

/** One envelope and what became of it: each attempt's connection, the acks. */
export interface FakeEnvelope {
  envelopeId: string;
  appId: string;
  /** `events_api` (an Events API body) or `interactive` (an interaction's payload object, not form-encoded). */
  type: EnvelopeType;
  payload: unknown;
  attempts: { connectionId?: string; at: number; retryAttempt: number; retryReason: string }[];
  /** Every ack received, with the time since the attempt it answered was sent. */
  acks: { connectionId: string; at: number; afterMs: number }[];
  /** Set when every attempt went unacknowledged: Slack gave up. */
  givenUp?: boolean;
}

export interface FakeSocketModeOptions {
  /** How long an envelope waits for its ack before it is sent again; Slack's is 3 s. */
  ackTimeoutMs?: number;
  /** Retries after the first attempt before Slack gives up on an envelope; default 3. */
  retries?: number;
  /** Slack's limit of open connections per app. */
  maxConnections?: number;
  /** How often the fake pings each connection (Slack's own server pings). */
  pingIntervalMs?: number;
  /** How long a connection told to refresh stays open before the fake closes it. */
  refreshGraceMs?: number;
}

interface App {
  appId: string;
  connections: Map<string, { socket: WebSocket; record: FakeSocketConnection }>;
}

interface Pending {
  envelope: FakeEnvelope;
  timer?: NodeJS.Timeout;
}

/**
 * Slack's Socket Mode as a real WebSocket server: `apps.connections.open` (served by FakeSlack with an app-level
 * token) hands out a one-time URL here; a connection gets `hello`, server pings, and the app's envelopes — each sent
 * to ONE random open connection of the app, sent again (with `retry_attempt`, `retry_reason: "timeout"`) to a random
 * one when no ack `{envelope_id}` comes within 3 s, up to three retries. `disconnect` sends Slack's disconnect
 * message. Everything is recorded, so a test can count envelopes, attempts and acks.
 */
export class FakeSocketMode {
  readonly envelopes: FakeEnvelope[] = [];
  /** Every connection ever opened, open or closed. */
  readonly history: FakeSocketConnection[] = [];
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly apps = new Map<string, App>();
  private readonly tokens = new Map<string, string>();
  private readonly tickets = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();
  private readonly byId = new Map<string, FakeEnvelope>();
  private readonly options: Required<FakeSocketModeOptions>;
  private pinger: NodeJS.Timeout | undefined;
  private baseUrl = "";

  constructor(options: FakeSocketModeOptions = {}) {
    this.options = {
      ackTimeoutMs: 3_000,
      retries: 3,
      maxConnections: 10,
      pingIntervalMs: 5_000,
      refreshGraceMs: 1_000,
      ...options,
    };
    this.server = createServer((_req, res) => res.writeHead(404).end());
    this.server.on("upgrade", (req, socket, head) => {
      const url = new URL(req.url ?? "/", "ws://fake");
      const appId = this.tickets.get(url.searchParams.get("ticket") ?? "");
      if (!appId) {
        socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
        return;
      }
      this.tickets.delete(url.searchParams.get("ticket") ?? "");
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(appId, ws));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.pinger = setInterval(() => {
      for (const app of this.apps.values()) for (const { socket } of app.connections.values()) socket.ping();
    }, this.options.pingIntervalMs);
    this.pinger.unref();
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    for (const socket of this.wss.clients) socket.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Enables Socket Mode for an app; returns its app-level token (`xapp-…`), the workspace's `appToken`. */
  addApp(appId: string): string {
    const token = `xapp-1-${appId}-${randomBytes(12).toString("hex")}`;
    this.apps.set(appId, this.apps.get(appId) ?? { appId, connections: new Map() });
    this.tokens.set(token, appId);
    return token;
  }

  /** Answers apps.connections.open, called with the app-level token as its bearer. */
  connectionsOpen(call: RecordedCall): FakeResponse {
    const token = /^Bearer (.+)$/.exec(call.headers.authorization ?? "")?.[1];
    if (!token) return { status: 200, body: { ok: false, error: "not_authed" } };
    const appId = this.tokens.get(token);
    if (!appId) return { status: 200, body: { ok: false, error: "invalid_auth" } };
    const ticket = randomUUID();
    this.tickets.set(ticket, appId);
    return { status: 200, body: { ok: true, url: `${this.baseUrl}/link/?ticket=${ticket}&app_id=${appId}` } };
  }

  /** The app's open connections now. */
  open(appId: string): FakeSocketConnection[] {
    return [...(this.apps.get(appId)?.connections.values() ?? [])].map(({ record }) => ({ ...record }));
  }

  /**
   * Sends an envelope (an Events API payload, or with `interactive` an interaction's) to one random open connection
   * of the app, and again until acked.
   */
  deliver(appId: string, payload: unknown, type: EnvelopeType = "events_api"): FakeEnvelope {
    const envelope: FakeEnvelope = { envelopeId: randomUUID(), appId, type, payload, attempts: [], acks: [] };
    this.envelopes.push(envelope);
    this.byId.set(envelope.envelopeId, envelope);
    this.pending.set(envelope.envelopeId, { envelope });
    this.attempt(envelope, 0, "");
    return envelope;
  }

  /**
   * Sends an envelope once more, as Slack's retry does (`retry_attempt` one more than its last attempt's), even if
   * it was acknowledged: as Slack would after an ack lost with its connection. It is then retried until acked again.
   */
  redeliver(envelope: FakeEnvelope, retryReason = "timeout"): void {
    clearTimeout(this.pending.get(envelope.envelopeId)?.timer);
    this.pending.set(envelope.envelopeId, { envelope });
    this.attempt(envelope, (envelope.attempts.at(-1)?.retryAttempt ?? -1) + 1, retryReason);
  }

  /** Sends Slack's `disconnect` to every open connection of the app; they are closed after a grace. */
  disconnect(appId: string, reason: DisconnectReason): number {
    const connections = [...(this.apps.get(appId)?.connections.values() ?? [])];
    for (const { socket } of connections) this.sendDisconnect(socket, reason);
    return connections.length;
  }

  /** Envelopes still waiting for an ack. */
  unacknowledged(): FakeEnvelope[] {
    return [...this.pending.values()].map(({ envelope }) => envelope);
  }

  private accept(appId: string, socket: WebSocket): void {
    const app = this.apps.get(appId);
    if (!app) return void socket.terminate();
    const record: FakeSocketConnection = { id: randomUUID(), appId, openedAt: Date.now() };
    this.history.push(record);
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: app.connections.size + 1,
        debug_info: { host: "fake-socket-mode", build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: appId },
      }),
    );
    if (app.connections.size >= this.options.maxConnections) {
      this.sendDisconnect(socket, "too_many_websockets");
      return;
    }
    app.connections.set(record.id, { socket, record });
    const gone = () => {
      if (!app.connections.delete(record.id)) return;
      record.closedAt = Date.now();
    };
    socket.on("close", gone);
    socket.on("error", gone);
    socket.on("message", (data) => this.acknowledge(record.id, String(data)));
  }

  private sendDisconnect(socket: WebSocket, reason: DisconnectReason): void {
    socket.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "fake-socket-mode" } }));
    setTimeout(() => socket.close(1000), this.options.refreshGraceMs).unref();
  }

  private attempt(envelope: FakeEnvelope, retryAttempt: number, retryReason: string): void {
    const pending = this.pending.get(envelope.envelopeId);
    if (!pending) return;
    const open = [...(this.apps.get(envelope.appId)?.connections.values() ?? [])];
    const target = open[Math.floor(Math.random() * open.length)];
    envelope.attempts.push({ connectionId: target?.record.id, at: Date.now(), retryAttempt, retryReason });
    target?.socket.send(
      JSON.stringify({
        envelope_id: envelope.envelopeId,
        payload: envelope.payload,
        type: envelope.type,
        accepts_response_payload: false,
        retry_attempt: retryAttempt,
        retry_reason: retryReason,
      }),
    );
    pending.timer = setTimeout(() => {
      if (retryAttempt >= this.options.retries) {
        envelope.givenUp = true;
        this.pending.delete(envelope.envelopeId);
        return;
      }
      this.attempt(envelope, retryAttempt + 1, "timeout");
    }, this.options.ackTimeoutMs);
    pending.timer.unref();
  }

  private acknowledge(connectionId: string, message: string): void {
    let envelopeId: unknown;
    try {
      envelopeId = (JSON.parse(message) as { envelope_id?: unknown }).envelope_id;
    } catch {
      return;
    }
    const envelope = typeof envelopeId === "string" ? this.byId.get(envelopeId) : undefined;
    if (!envelope) return;
    const sent = envelope.attempts.at(-1)?.at ?? Date.now();
    envelope.acks.push({ connectionId, at: Date.now(), afterMs: Date.now() - sent });
    const pending = this.pending.get(envelope.envelopeId);
    if (pending) {
      clearTimeout(pending.timer);
      this.pending.delete(envelope.envelopeId);
    }
  }
}
