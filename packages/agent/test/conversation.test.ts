import type { Turn } from "@resident/core";
import { describe, expect, it } from "vitest";
import { emptyMessageText, toConversation } from "../src/conversation.ts";

const user = (text: string): Turn => ({ role: "user", text });
const assistant = (text: string): Turn => ({ role: "assistant", text });

describe("toConversation", () => {
  it("keeps an alternating thread as it is and ends with the current message", () => {
    expect(toConversation([user("hi"), assistant("hello")], "how are you?")).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "how are you?" },
    ]);
  });

  it("starts with the user: answers before the first question are dropped", () => {
    expect(toConversation([assistant("orphan"), assistant("another")], "question")).toEqual([
      { role: "user", content: "question" },
    ]);
  });

  it("merges turns of one role and drops empty ones", () => {
    expect(
      toConversation([user("a"), user(""), user("b"), assistant("c"), assistant("  \n"), assistant("d")], "e"),
    ).toEqual([
      { role: "user", content: "a\n\nb" },
      { role: "assistant", content: "c\n\nd" },
      { role: "user", content: "e" },
    ]);
  });

  it("merges the current message into an unanswered one before it", () => {
    expect(toConversation([user("hi"), assistant("hello"), user("are you there?")], "hello?")).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "are you there?\n\nhello?" },
    ]);
  });

  it("says so when the current message has no text", () => {
    expect(toConversation([], " ")).toEqual([{ role: "user", content: emptyMessageText }]);
  });
});
