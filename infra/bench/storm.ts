import type { DeployedSlackWorkspace } from "@resident/testkit/deployment";
import { appMention, type SlackEventEnvelope, twinOf } from "@resident/testkit/slack";
import type { PreparedRequest } from "./load.ts";

/** One user message of a twin storm: its deliveries, side by side, and the thread its one answer lands in. */
export interface StormedMessage {
  /** `channel:ts`: the thread the reply lands in (FakeSlack.countsByThread's key). */
  thread: string;
  /** app_mention and its message.channels twin (two event ids), each delivered `copies` times. */
  bodies: SlackEventEnvelope[];
}

/**
 * Every message as app_mention and its message.channels twin, each delivered 2–4 times (`2 + i % 3`): 6 deliveries
 * a message on average, as Slack sends them when an app subscribes to both and retries. `text(i)` is the question.
 */
export function twinStorm(ws: DeployedSlackWorkspace, count: number, text: (i: number) => string): StormedMessage[] {
  const out: StormedMessage[] = [];
  for (let i = 0; i < count; i++) {
    const mention = appMention(ws.bot, text(i));
    const bodies: SlackEventEnvelope[] = [];
    for (const body of [mention, twinOf(mention)]) for (let k = 0, n = 2 + (i % 3); k < n; k++) bodies.push(body);
    out.push({ thread: `${mention.event.channel}:${mention.event.ts}`, bodies });
  }
  return out;
}

/** The storm's deliveries, signed before any clock starts, the copies of a message next to each other. */
export function signedStorm(ws: DeployedSlackWorkspace, storm: readonly StormedMessage[]): PreparedRequest[] {
  return storm.flatMap((message) =>
    message.bodies.map((body) => {
      const request = ws.request(body);
      return { path: ws.webhookPath, headers: request.headers, body: request.rawBody };
    }),
  );
}
