import type { Logger } from "@resident/core";
import { leanFetchWithin } from "@resident/http";
import { type FetchFunction, LogLevel, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import { LRUCache } from "lru-cache";

export interface SlackClientOptions {
  apiUrl: string;
  timeoutMs: number;
  logger?: Logger;
}

/**
 * One WebClient per bot token, reused across sends and bounded so a service with many workspaces (or rotated
 * tokens) does not grow without end. Every client posts at most once per call: its own retries would repost
 * after a timeout (by default 10 retries over ~30 minutes), and a queued 429 would hold a worker in hand. They
 * call through leanFetch: the global fetch cost about 0.4 ms of CPU more per call.
 */
export class SlackClients {
  private readonly clients = new LRUCache<string, WebClient>({ max: 1_000 });
  private readonly fetch: typeof fetch;

  constructor(private readonly options: SlackClientOptions) {
    this.fetch = leanFetchWithin(options.timeoutMs);
  }

  for(botToken: string): WebClient {
    let client = this.clients.get(botToken);
    if (!client) {
      client = this.create(botToken);
      this.clients.set(botToken, client);
    }
    return client;
  }

  /** A client without a token, for the calls that authenticate otherwise (oauth.v2.access: the app's secret). */
  anonymous(): WebClient {
    return this.create(undefined);
  }

  private create(token: string | undefined): WebClient {
    return new WebClient(token, {
      slackApiUrl: this.options.apiUrl,
      // The timeout is the transport's (leanFetchWithin): the client's own would cost a timer and a signal a call.
      timeout: 0,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      // The client's types ask for a Headers with entries(), which node's has; TypeScript's node lib leaves it out.
      fetch: this.fetch as unknown as FetchFunction,
      ...(this.options.logger ? { logger: bridge(this.options.logger) } : { logLevel: LogLevel.ERROR }),
    });
  }
}

/** Sends the client's own warnings (Slack's response_metadata warnings, failed requests) to our logger. */
export function bridge(logger: Logger): SlackLogger {
  const warn = (...msg: unknown[]) => logger.warn({ slack: msg.map(String).join(" ") }, "@slack/web-api");
  return {
    debug: () => {},
    info: () => {},
    warn,
    error: warn,
    setLevel: () => {},
    getLevel: () => LogLevel.WARN,
    setName: () => {},
  };
}
