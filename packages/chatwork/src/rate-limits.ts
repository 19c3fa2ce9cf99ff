import { createHash } from "node:crypto";
import type { RateWindow } from "@resident/core";

export interface ChatworkLimit {
  limit: number;
  windowMs: number;
}

export interface ChatworkLimits {
  /** Every request made with one API token. */
  perToken: ChatworkLimit;
  /** Posts into one room. */
  postsPerRoom: ChatworkLimit;
}

/** Chatwork's published limits. */
export const chatworkLimits: ChatworkLimits = {
  perToken: { limit: 300, windowMs: 5 * 60_000 },
  postsPerRoom: { limit: 10, windowMs: 10_000 },
};

/**
 * Our windows run longer than Chatwork's (a tenth, plus half a second): a request is counted here when it leaves and
 * at Chatwork when it arrives, and connection set-up and network jitter in between must never put one request too
 * many into Chatwork's window.
 */
const withSafetyMargin = (windowMs: number) => Math.ceil(windowMs * 1.1) + 500;

/**
 * The token is never part of a key, only its hash: one token used by two workspaces shares its windows, two
 * workspaces sharing nothing never do. The hash is a Redis Cluster hash tag, so one `take` stays in one slot.
 */
export function tokenScope(apiToken: string): string {
  return createHash("sha256").update(apiToken).digest("hex").slice(0, 32);
}

export const tokenWindowKey = (scope: string) => `chatwork:{${scope}}:token`;
export const roomWindowKey = (scope: string, roomId: string) => `chatwork:{${scope}}:room:${roomId}`;

/** The windows one request takes: the token's, and the room's too when it posts. */
export function requestWindows(limits: ChatworkLimits, scope: string, postRoomId?: string): RateWindow[] {
  const window = (key: string, { limit, windowMs }: ChatworkLimit) => ({
    key,
    limit,
    windowMs: withSafetyMargin(windowMs),
  });
  const token = window(tokenWindowKey(scope), limits.perToken);
  return postRoomId === undefined ? [token] : [token, window(roomWindowKey(scope, postRoomId), limits.postsPerRoom)];
}
