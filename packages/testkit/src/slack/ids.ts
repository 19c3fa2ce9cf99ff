import { randomUUID } from "node:crypto";

let lastMicros = 0;

/** A Slack message timestamp (`seconds.micros`), unique and increasing within this process. */
export function nextTs(): string {
  lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
  return `${Math.floor(lastMicros / 1e6)}.${String(lastMicros % 1e6).padStart(6, "0")}`;
}

/** A Slack-looking id: a type prefix (T team, U user, B bot, A app, C channel, D DM, Ev event) and random letters. */
export function slackId(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll("-", "").slice(0, 10).toUpperCase()}`;
}
