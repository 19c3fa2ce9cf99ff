import {
  type Inbound,
  type InboundRequest,
  MalformedPayloadError,
  parsePayload,
  singleHeader,
  type Workspace,
} from "@resident/core";
import { feedbackActionId } from "./feedback.ts";
import { blockActionsSchema, feedbackActionSchema, typeOf } from "./payload.ts";

const ignore = (reason: string): Inbound => ({ kind: "ignore", reason });

/**
 * The JSON of an interaction: Slack sends each one form-encoded, its JSON in the field `payload` (and a Socket Mode
 * `interactive` envelope is handed over as that form too).
 */
export function interactionPayload(request: InboundRequest): unknown {
  const contentType = singleHeader(request.headers, "content-type") ?? "";
  if (!contentType.startsWith("application/x-www-form-urlencoded")) {
    throw new MalformedPayloadError("an interaction is form-encoded (application/x-www-form-urlencoded)");
  }
  const field = new URLSearchParams(request.rawBody.toString("utf8")).get("payload");
  if (!field) throw new MalformedPayloadError("an interaction carries its JSON in the form field payload");
  try {
    return JSON.parse(field);
  } catch {
    throw new MalformedPayloadError("the interaction's payload is not JSON");
  }
}

/**
 * Turns a verified interaction into a feedback click or nothing: of all interactions, only a block_actions click on
 * our feedback_buttons (our action_id) on a message is counted. The click's identity is its action_ts.
 */
export function normalizeInteraction(request: InboundRequest, workspace: Workspace, receivedAt: number): Inbound {
  const body = interactionPayload(request);
  const type = typeOf(body, "interaction payload");
  if (type !== "block_actions") return ignore(`${type} interactions are not handled`);
  const payload = parsePayload(blockActionsSchema, body, "block_actions payload");
  const action = payload.actions.find((candidate) => candidate.action_id === feedbackActionId);
  if (!action) return ignore("a click on an element that is not our feedback buttons");
  const { value, action_ts } = parsePayload(feedbackActionSchema, action, "feedback_buttons action");
  const { type: container, channel_id, message_ts } = payload.container;
  if (container !== "message" || !channel_id || !message_ts) {
    throw new MalformedPayloadError("a feedback click names no message (container channel_id and message_ts)");
  }
  return {
    kind: "feedback",
    click: {
      platform: "slack",
      tenantId: workspace.tenantId,
      workspaceId: workspace.id,
      messageId: `${channel_id}:${message_ts}`,
      userId: payload.user.id,
      vote: value,
      clickId: action_ts,
      clickedAt: Math.round(Number(action_ts) * 1000) || receivedAt,
    },
  };
}
