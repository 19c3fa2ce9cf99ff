import type { DeployedSlackWorkspace } from "@resident/testkit/deployment";
import { appMention } from "@resident/testkit/slack";
import type { PreparedRequest } from "./load.ts";

export interface Mention extends PreparedRequest {
  /** `channel:ts`: the thread the reply lands in (FakeSlack.countsByThread's key). */
  thread: string;
}

/** The bench's `i`-th distinct app_mention to `ws`, signed now: the load generator only writes its bytes. */
export function mention(ws: DeployedSlackWorkspace, i: number): Mention {
  const body = appMention(ws.bot, `bench question ${i}: when does the office open?`);
  const signed = ws.request(body);
  return {
    path: ws.webhookPath,
    headers: signed.headers,
    body: signed.rawBody,
    thread: `${body.event.channel}:${body.event.ts}`,
  };
}
