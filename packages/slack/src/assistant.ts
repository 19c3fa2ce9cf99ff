import type { OutboundReply, WorkingIndicator, Workspace } from "@resident/core";
import type { BotCalls } from "./bot-calls.ts";
import type { SlackCredentials } from "./credentials.ts";

/** An assistant thread (the app's own surface in Slack): where status, title and suggested prompts apply. */
export interface AssistantThread {
  channel: string;
  threadTs: string;
}

/** Marks a conversation as an assistant thread in `Conversation.address`. */
export const assistantAddress = { surface: "assistant" } as const;

const titleLength = 80;

/**
 * Slack's assistant threads: `assistant.threads.setStatus` (with loading messages) while an answer is written,
 * cleared once it is sent or has failed; the thread's title set from its first question; suggested prompts offered
 * when a thread opens (`assistant_thread_started`), from the workspace's settings.
 */
export class SlackAssistant implements WorkingIndicator<SlackCredentials> {
  constructor(private readonly calls: BotCalls) {}

  async show(
    reply: OutboundReply,
    workspace: Workspace<SlackCredentials>,
    { firstInThread }: { firstInThread: boolean },
  ) {
    const thread = assistantThreadOf(reply);
    if (!thread) return;
    const call = this.calls.for(workspace);
    await call((client) =>
      client.assistant.threads.setStatus({
        channel_id: thread.channel,
        thread_ts: thread.threadTs,
        status: "is thinking…",
        loading_messages: ["Reading the thread…", "Writing an answer…"],
      }),
    );
    if (firstInThread && reply.text.trim() !== "") {
      await call((client) =>
        client.assistant.threads.setTitle({
          channel_id: thread.channel,
          thread_ts: thread.threadTs,
          title: reply.text.trim().slice(0, titleLength),
        }),
      );
    }
  }

  async clear(reply: OutboundReply, workspace: Workspace<SlackCredentials>) {
    const thread = assistantThreadOf(reply);
    if (!thread) return;
    await this.calls.for(workspace)((client) =>
      client.assistant.threads.setStatus({ channel_id: thread.channel, thread_ts: thread.threadTs, status: "" }),
    );
  }

  /** Offers the workspace's suggested prompts in a thread just opened; nothing when it has none. */
  async threadStarted(thread: AssistantThread, workspace: Workspace<SlackCredentials>): Promise<void> {
    const prompts = workspace.settings.suggestedPrompts;
    if (prompts.length === 0) return;
    await this.calls.for(workspace)((client) =>
      client.assistant.threads.setSuggestedPrompts({
        channel_id: thread.channel,
        thread_ts: thread.threadTs,
        prompts: prompts.map(({ title, message }) => ({ title, message })),
      }),
    );
  }
}

function assistantThreadOf({ event }: OutboundReply): AssistantThread | undefined {
  const { id, threadId, address } = event.conversation;
  return address?.surface === assistantAddress.surface && threadId ? { channel: id, threadTs: threadId } : undefined;
}
