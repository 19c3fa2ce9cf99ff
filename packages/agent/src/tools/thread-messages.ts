import { threadBlock } from "../thread-prompt.ts";
import type { BuiltinTool } from "./agent-tool.ts";

/**
 * The earlier messages of the thread the agent was called into, read from the platform when the model asks (the
 * prompt carries them only when the agent has no memory of the thread). Offered where the platform can be read.
 */
export const threadMessages: BuiltinTool = (request) => {
  const { readThread } = request;
  if (!readThread) return undefined;
  return {
    definition: {
      name: "thread_messages",
      description:
        "The earlier messages of the thread or room this conversation is in, oldest first, as people wrote them there.",
      input_schema: { type: "object", properties: {} },
    },
    async run() {
      const thread = await readThread();
      if (!thread)
        return { status: "done", content: "This message has no earlier messages around it.", isError: false };
      const [block] = threadBlock(thread);
      return { status: "done", content: block?.text ?? "", isError: thread.status === "unavailable" };
    },
  };
};
