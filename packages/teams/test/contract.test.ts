import type { InboundRequest } from "@resident/core";
import { adapterContract } from "@resident/testkit";
import { delivery, type TeamsActivity } from "@resident/testkit/teams";
import { teamsPlatform } from "../src/index.ts";
import { appId, startTeams } from "./harness.ts";

const activityOf = (request: InboundRequest): TeamsActivity => JSON.parse(request.rawBody.toString("utf8"));

adapterContract("teams", async () => {
  const { bf, adapter, workspace, message } = await startTeams();
  const token = await bf.signChannelJwt({ appId, serviceUrl: bf.serviceUrl });
  let retries = 0;
  return {
    platform: teamsPlatform,
    adapter,
    workspace,
    userMessage: (text) => delivery(message(text, { threadRootId: "1700000000000" }), token),
    redelivery: (of) => ({ ...of, rawBody: Buffer.from(of.rawBody) }),
    // Teams' retry of a message under a new activity id.
    twin: (of) => {
      const activity = activityOf(of);
      return delivery({ ...activity, id: `${activity.id}${++retries}` }, token);
    },
    ownMessage: () => {
      const own = message("our own answer");
      return delivery({ ...own, from: own.recipient }, token);
    },
    // The signature's second-to-last character: the last one may differ only in padding bits.
    tampered: (of) => {
      const signature = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
      return { ...of, headers: { ...of.headers, authorization: `Bearer ${signature}` } };
    },
    unsigned: (of) => ({ ...of, headers: { "content-type": "application/json" } }),
    replies: async () =>
      bf.activities.map((posted) => ({ conversationId: posted.conversationId, text: String(posted.activity.text) })),
    close: () => bf.close(),
  };
});
