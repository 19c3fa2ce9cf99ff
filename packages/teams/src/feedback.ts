import { type Inbound, MalformedPayloadError, parsePayload, type Vote, type Workspace } from "@resident/core";
import { type InboundActivity, submitActionSchema } from "./payload.ts";

/**
 * Turns on Teams' feedback loop for an answer (its activity's channelData): Teams shows 👍 / 👎 under it and sends a
 * click as a message/submitAction invoke. The plain flag, not `feedbackLoop`: Teams refuses an activity with both.
 */
export const feedbackLoop = { feedbackLoopEnabled: true } as const;

const votes: Record<"like" | "dislike", Vote> = { like: "positive", dislike: "negative" };

/**
 * A message/submitAction invoke with actionName "feedback": a click on an answer's feedback loop, answered (by
 * Ingest) with a 200 invoke response. The click's identity is the invoke's activity id; the voter is the person's
 * Entra object id where the activity names it, else their channel account id.
 */
export function normalizeInvoke(activity: InboundActivity, workspace: Workspace, receivedAt: number): Inbound {
  if (activity.name !== "message/submitAction") {
    return { kind: "ignore", reason: `invoke ${activity.name ?? "without a name"}: resident acts only on feedback` };
  }
  const { actionName, actionValue } = parsePayload(submitActionSchema, activity.value, "message/submitAction value");
  if (actionName !== "feedback") return { kind: "ignore", reason: `submitAction ${actionName} is not feedback` };
  if (!actionValue) throw new MalformedPayloadError("a feedback submitAction without actionValue.reaction");
  if (!activity.id || !activity.replyToId) {
    throw new MalformedPayloadError("a feedback invoke names no activity id or no replyToId (the answer)");
  }
  return {
    kind: "feedback",
    click: {
      platform: "teams",
      tenantId: workspace.tenantId,
      workspaceId: workspace.id,
      messageId: `${activity.conversation.id}:${activity.replyToId}`,
      userId: activity.from.aadObjectId ?? activity.from.id,
      vote: votes[actionValue.reaction],
      clickId: activity.id,
      clickedAt: (activity.timestamp && Date.parse(activity.timestamp)) || receivedAt,
    },
  };
}
