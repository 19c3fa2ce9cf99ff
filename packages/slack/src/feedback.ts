import type { ChatStopStreamArguments } from "@slack/web-api";

type Blocks = NonNullable<ChatStopStreamArguments["blocks"]>;

/** The action_id of our feedback buttons: a block_actions payload with any other is not ours to count. */
export const feedbackActionId = "resident_feedback";

/** A markdown block's limit (and the limit of all markdown blocks of one message together). */
const markdownBlockLimit = 12_000;

/** 👍 / 👎 under an answer: Slack's feedback_buttons in a context_actions block; the values are core's votes. */
export const feedbackBlock: Blocks[number] = {
  type: "context_actions",
  elements: [
    {
      type: "feedback_buttons",
      action_id: feedbackActionId,
      positive_button: {
        text: { type: "plain_text", text: "👍" },
        value: "positive",
        accessibility_label: "This answer helped",
      },
      negative_button: {
        text: { type: "plain_text", text: "👎" },
        value: "negative",
        accessibility_label: "This answer did not help",
      },
    },
  ],
};

/**
 * A posted answer as blocks: its text in a markdown block (blocks are shown instead of `text`, which stays as the
 * notification's and search's words), then the feedback buttons. An answer longer than a markdown block takes is
 * posted as plain text, without buttons.
 */
export function answerBlocks(text: string): Blocks | undefined {
  return text.length <= markdownBlockLimit ? [{ type: "markdown", text }, feedbackBlock] : undefined;
}
