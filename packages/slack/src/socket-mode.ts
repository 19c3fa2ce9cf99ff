import type {
  InboundRequest,
  Logger,
  ReceiverConnection,
  ReceiverDescriptor,
  ReceiverHooks,
  ReceiverTarget,
} from "@resident/core";
import { SocketModeClient } from "@slack/socket-mode";
import { bridge } from "./api.ts";
import type { SlackCredentials } from "./credentials.ts";

export interface SocketModeOptions {
  /** The Web API base, where apps.connections.open is asked for each connection's URL. */
  apiUrl: string;
  logger: Logger;
}

/** What Slack allows one app: ten open connections; it sends each envelope to one of them. */
const maxConnections = 10;

/**
 * A Socket Mode workspace is one whose credentials carry an app-level token; the distributed app's connections
 * carry its own (SLACK_APP_TOKEN), one set for all its installations.
 */
export function socketModeReceiver(options: SocketModeOptions): ReceiverDescriptor<Pick<SlackCredentials, "appToken">> {
  return {
    credentialField: "appToken",
    maxConnections,
    open: (workspace, hooks) => new SocketModeConnection(workspace, hooks, options),
  };
}

/** One Socket Mode envelope, as @slack/socket-mode hands it over. */
interface Envelope {
  ack: () => Promise<void>;
  type: string;
  body: unknown;
  retry_num?: number;
  retry_reason?: string;
}

/**
 * One Socket Mode connection that re-opens itself until closed. @slack/socket-mode speaks the protocol (the URL from
 * apps.connections.open, hello, disconnect, pings, acks), but its own reconnection is off: it waits a ping timeout
 * before re-opening even after Slack asked for a refresh, and a re-open that fails for good (a revoked token)
 * rejects a promise nobody holds, which would end the process. So each connection is a fresh client, and a client
 * that closes — Slack's disconnect (refresh_requested, link_disabled, too_many_websockets), a socket error, a
 * missed ping — is replaced at once, then with a growing pause while replacements keep failing.
 */
class SocketModeConnection implements ReceiverConnection {
  private client: SocketModeClient | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly workspace: ReceiverTarget<Pick<SlackCredentials, "appToken">>,
    private readonly hooks: ReceiverHooks,
    private readonly options: SocketModeOptions,
  ) {
    this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.disconnect();
  }

  private connect(): void {
    if (this.closed) return;
    this.hooks.onState("connecting");
    const client = new SocketModeClient({
      appToken: this.workspace.credentials.appToken ?? "",
      autoReconnectEnabled: false,
      logger: bridge(this.options.logger),
      clientOptions: { slackApiUrl: this.options.apiUrl, retryConfig: { retries: 0 }, timeout: 10_000 },
    });
    this.client = client;
    client.on("slack_event", (envelope: Envelope) => void this.receive(envelope));
    client.on("connected", () => {
      this.failures = 0;
      this.hooks.onState("open");
    });
    client.on("disconnected", () => {
      this.options.logger.info({ workspaceId: this.workspace.id }, "Socket Mode connection closed: re-opening");
      this.replace(client);
    });
    client.start().catch((err: unknown) => {
      this.options.logger.warn({ workspaceId: this.workspace.id, err }, "Socket Mode connection could not open");
      this.failures++;
      this.replace(client);
    });
  }

  /** Replaces a client that closed (once, however many ways it says so). */
  private replace(client: SocketModeClient): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.removeAllListeners();
    const pause = this.failures === 0 ? 0 : Math.min(30_000, 250 * 2 ** this.failures) * (0.5 + Math.random() / 2);
    this.timer = setTimeout(() => this.connect(), pause);
  }

  /**
   * Acknowledges once the delivery is durably queued or known as a duplicate — whatever the ingest pipeline would
   * answer a webhook with 2xx (or 4xx: a retry would not change it). A 5xx is left unacknowledged, so Slack sends
   * the envelope again, as it retries a webhook. Envelopes of other types (slash commands, which we do not offer)
   * are acknowledged unread.
   */
  private async receive(envelope: Envelope): Promise<void> {
    try {
      const request = inboundRequest(envelope);
      if (request) {
        const response = await this.hooks.deliver(request);
        if (response.status >= 500) return;
      }
      await envelope.ack();
    } catch (err) {
      this.options.logger.warn({ workspaceId: this.workspace.id, err }, "Socket Mode envelope not acknowledged");
    }
  }
}

/**
 * An envelope as the webhook it stands for: an Events API body as Slack POSTs it to the Request URL; an
 * `interactive` one (its payload the interaction's JSON object) as the form Slack POSTs to the Interactivity
 * Request URL, so the one interaction normalizer reads both.
 */
function inboundRequest({ type, body, retry_num, retry_reason }: Envelope): InboundRequest | undefined {
  const retried = retry_num !== undefined && retry_num > 0;
  const headers = retried ? { "x-slack-retry-num": String(retry_num), "x-slack-retry-reason": retry_reason } : {};
  if (type === "events_api") return { rawBody: Buffer.from(JSON.stringify(body)), headers, query: {} };
  if (type !== "interactive") return undefined;
  return {
    endpoint: "interactions",
    rawBody: Buffer.from(new URLSearchParams({ payload: JSON.stringify(body) }).toString()),
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    query: {},
  };
}
