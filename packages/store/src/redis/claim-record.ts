import { randomBytes } from "node:crypto";
import { type ClaimRecord, CorruptRecordError } from "@resident/core";

/*
 * The value kept under a claim key: `i:<token>:<owner>` while in progress, `d:<value>` once done.
 * The token is ours (base64url, so never ':'), which makes everything after its closing ':' the owner verbatim:
 * owners and values are arbitrary strings and need no escaping. The Lua scripts check ownership by comparing the
 * `i:<token>:` prefix.
 */

export function newToken(): string {
  return randomBytes(16).toString("base64url");
}

/** The prefix that proves `token` holds a claim. */
export function heldBy(token: string): string {
  return `i:${token}:`;
}

export function inProgress(token: string, owner: string): string {
  return heldBy(token) + owner;
}

export function done(value: string): string {
  return `d:${value}`;
}

export function decodeClaim(stored: string): ClaimRecord {
  if (stored.startsWith("d:")) return { state: "done", value: stored.slice(2) };
  const ownerAt = stored.indexOf(":", 2) + 1;
  if (!stored.startsWith("i:") || ownerAt === 0) throw new CorruptRecordError("unreadable claim record");
  return { state: "in_progress", owner: stored.slice(ownerAt) };
}
