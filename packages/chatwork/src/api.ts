import { setTimeout as sleep } from "node:timers/promises";
import type { Logger, RateLimiter } from "@resident/core";
import { connectionErrorCode, RateLimitedError } from "@resident/core";
import { leanFetch } from "@resident/http";
import { requestFailure } from "./errors.ts";
import { type ChatworkLimits, requestWindows, roomWindowKey, tokenScope, tokenWindowKey } from "./rate-limits.ts";
import { RatePauses } from "./rate-pauses.ts";

export interface ChatworkApiOptions {
  apiUrl: string;
  timeoutMs: number;
  limiter: RateLimiter;
  limits: ChatworkLimits;
  logger?: Logger;
}

export interface ApiRequest {
  method: "GET" | "POST";
  /** Below the API URL, query included: "/rooms/1/messages?force=1". */
  path: string;
  apiToken: string;
  /** A post into this room: it takes the room's window as well as the token's. */
  postRoomId?: string;
  form?: Record<string, string>;
  /** How long a read may wait in hand for a free rate slot before it fails with RateLimitedError. Default 60 s. */
  patienceMs?: number;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** How long a read waits in hand for a free rate slot before giving up. */
const readPatienceMs = 60_000;
/** The shortest wait after a 429, so that a reset already past on our clock cannot spin. */
const minimumRateWaitMs = 1_000;

/**
 * Chatwork's HTTP API, one attempt per call, inside Chatwork's rate limits.
 *
 * Two sources of truth combine. The shared RateLimiter (Redis in production) holds every instance together under
 * Chatwork's published limits, so ordinarily no request of ours meets a 429. But a customer's API token also serves
 * their own scripts, which the limiter cannot see; Chatwork's x-ratelimit-* headers can. When an answer says the
 * token's budget is spent (remaining 0) or Chatwork answers 429, this instance holds that window until the reset
 * Chatwork names; other instances learn the same from their own next answer.
 *
 * A post is the one request that changes anything, so its failures say whether it may have posted: no slot free or
 * 429 → RateLimitedError (nothing sent, the sender waits it out); never sent → SendRejectedError; timeout or 5xx →
 * OutcomeUnknownError. A read waits for its slot and fails with a plain Error.
 */
export class ChatworkApi {
  private readonly pauses = new RatePauses();

  constructor(private readonly options: ChatworkApiOptions) {}

  async request(request: ApiRequest): Promise<ApiAnswer> {
    const scope = tokenScope(request.apiToken);
    await this.takeSlot(request, scope);
    let response: Response;
    let text: string;
    try {
      response = await leanFetch(`${this.options.apiUrl}${request.path}`, {
        method: request.method,
        headers: { "x-chatworktoken": request.apiToken, accept: "application/json" },
        body: request.form ? new URLSearchParams(request.form) : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw requestFailure(request.method, request.path, describe(error), error);
    }
    const now = Date.now();
    const budget = rateBudget(response.headers);
    if (budget.remaining === 0 && budget.resetAt) this.pauses.pause(tokenWindowKey(scope), budget.resetAt);
    if (response.status === 429) throw this.rateLimited(request, scope, budget, now);
    if (response.status >= 500)
      throw requestFailure(request.method, request.path, `Chatwork answered ${response.status}`);
    return { status: response.status, body: parseJson(text) };
  }

  private async takeSlot(request: ApiRequest, scope: string): Promise<void> {
    const windows = requestWindows(this.options.limits, scope, request.postRoomId);
    const keys = windows.map((window) => window.key);
    const started = Date.now();
    for (;;) {
      const wait = this.pauses.remainingMs(keys, Date.now()) || (await this.options.limiter.take(windows));
      if (wait === 0) return;
      const patienceMs = request.patienceMs ?? readPatienceMs;
      if (request.method === "POST" || Date.now() - started + wait > patienceMs) throw new RateLimitedError(wait);
      await sleep(wait);
    }
  }

  private rateLimited(request: ApiRequest, scope: string, budget: RateBudget, now: number): RateLimitedError {
    // A 429 does not say which limit it hit: a spent token budget shows in the headers; otherwise it was the room's.
    const room = budget.remaining === 0 ? undefined : request.postRoomId;
    const key = room === undefined ? tokenWindowKey(scope) : roomWindowKey(scope, room);
    const until =
      room === undefined && budget.resetAt ? budget.resetAt : now + this.options.limits.postsPerRoom.windowMs;
    const retryAfterMs = Math.max(until - now, minimumRateWaitMs);
    this.pauses.pause(key, now + retryAfterMs);
    this.options.logger?.warn(
      { method: request.method, path: request.path.split("?")[0], retryAfterMs },
      "Chatwork answered 429: holding off",
    );
    return new RateLimitedError(retryAfterMs);
  }
}

interface RateBudget {
  remaining?: number;
  /** Epoch ms. */
  resetAt?: number;
}

function rateBudget(headers: Headers): RateBudget {
  const number = (name: string) => {
    const value = Number.parseInt(headers.get(name) ?? "", 10);
    return Number.isFinite(value) ? value : undefined;
  };
  const reset = number("x-ratelimit-reset");
  return { remaining: number("x-ratelimit-remaining"), resetAt: reset === undefined ? undefined : reset * 1000 };
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "timed out";
  return connectionErrorCode(error) ?? (error instanceof Error ? error.message : "request failed");
}
