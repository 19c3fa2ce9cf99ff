import { randomBytes } from "node:crypto";
import type { FakeSlackBlock, FakeSlackPost } from "./fake-slack.ts";
import { nextTs, slackId } from "./ids.ts";

export interface FeedbackClickOptions {
  vote: "positive" | "negative";
  /** Who clicks; default a new user of the post's team. */
  user?: string;
  /** The click's moment, Slack's action_ts; default now. A redelivery of one click carries the same. */
  actionTs?: string;
}

interface FeedbackButtons {
  type: "feedback_buttons";
  action_id: string;
  positive_button: { text: unknown; value: string };
  negative_button: { text: unknown; value: string };
}

/**
 * The form body Slack POSTs to the Interactivity Request URL when someone clicks one of the feedback buttons under
 * `post`: the click's payload in the form field `payload`.
 */
export function feedbackClick(post: FakeSlackPost, options: FeedbackClickOptions): string {
  return `payload=${encodeURIComponent(JSON.stringify(feedbackClickPayload(post, options)))}`;
}

/**
 * The block_actions payload of a click on one of the feedback buttons under `post`, as a Socket Mode `interactive`
 * envelope carries it (shaped as bolt's own test bodies are, its action as bolt-js's FeedbackButtonsAction).
 * The action id and value come from the post's own blocks, so only buttons the bot really posted can be clicked:
 * without a feedback_buttons element in a context_actions block, this throws.
 */
export function feedbackClickPayload(post: FakeSlackPost, options: FeedbackClickOptions): object {
  const block = post.blocks?.find((b) => b.type === "context_actions" && buttonsOf(b));
  const buttons = block && buttonsOf(block);
  if (!block || !buttons) throw new Error(`message ${post.ts} carries no feedback_buttons in a context_actions block`);
  const button = options.vote === "positive" ? buttons.positive_button : buttons.negative_button;
  const user = options.user ?? slackId("U");
  const payload = {
    type: "block_actions",
    user: { id: user, username: "someone", name: "someone", team_id: post.team },
    api_app_id: post.app_id,
    token: "verification_token",
    container: {
      type: "message",
      message_ts: post.ts,
      channel_id: post.channel,
      is_ephemeral: false,
      ...(post.thread_ts ? { thread_ts: post.thread_ts } : {}),
    },
    trigger_id: `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(16).toString("hex")}`,
    team: { id: post.team, domain: "fake-team" },
    channel: { id: post.channel, name: "general" },
    message: {
      type: "message",
      ts: post.ts,
      text: post.text,
      user: post.user,
      bot_id: post.bot_id,
      blocks: post.blocks,
    },
    response_url: `https://hooks.slack.test/actions/${post.team}/1/${randomBytes(8).toString("hex")}`,
    actions: [
      {
        type: "feedback_buttons",
        action_id: buttons.action_id,
        block_id: typeof block.block_id === "string" ? block.block_id : "feedback",
        text: button.text,
        value: button.value,
        action_ts: options.actionTs ?? nextTs(),
      },
    ],
  };
  return payload;
}

function buttonsOf(block: FakeSlackBlock): FeedbackButtons | undefined {
  const elements = Array.isArray(block.elements) ? (block.elements as { type?: unknown }[]) : [];
  return elements.find((element): element is FeedbackButtons => element.type === "feedback_buttons");
}
