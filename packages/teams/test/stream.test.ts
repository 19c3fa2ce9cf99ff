import { RateLimitedError, StreamEndedError } from "@resident/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamsAdapter } from "../src/index.ts";
import { endpointsOf, replyTo, startTeams, type TeamsHarness } from "./harness.ts";

describe("Teams streamed messages at the fake connector", () => {
  let t: TeamsHarness;
  beforeAll(async () => {
    t = await startTeams();
  });
  afterAll(() => t?.bf.close());
  beforeEach(() => {
    t.bf.server.clearFaults();
  });

  it("personal chat: informative update, streaming updates with the text so far, one final message", async () => {
    const event = await t.userEvent("how do refunds work?", { conversationType: "personal" });
    const { streams } = t.adapter;
    expect(streams.accepts(replyTo(event, ""))).toBe(true);
    const before = t.bf.activities.length;
    const { messageId } = await streams.start(replyTo(event, "Refunds "), t.workspace);
    await streams.append(replyTo(event, "take five "), messageId, t.workspace);
    await streams.append(replyTo(event, "working "), messageId, t.workspace);
    await streams.stop(replyTo(event, "days."), messageId, t.workspace);

    const stream = t.bf.streams.get(messageId);
    expect(stream?.updates.map((u) => [u.streamType, u.streamSequence, u.text])).toEqual([
      ["informative", 1, "Writing an answer…"],
      ["streaming", 2, "Refunds take five "],
      ["streaming", 3, "Refunds take five working "],
    ]);
    expect(stream?.finished).toBe(true);
    const posted = t.bf.activities.slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      id: messageId,
      activity: { type: "message", text: "Refunds take five working days." },
    });
  });

  it("group chats and channels take no stream; they get a typing indicator", async () => {
    const event = await t.userEvent("a channel question");
    expect(t.adapter.streams.accepts(replyTo(event, ""))).toBe(false);
    const typing = t.bf.typing.length;
    await t.adapter.working.show(replyTo(event, event.text), t.workspace);
    expect(t.bf.typing.length).toBe(typing + 1);
  });

  it("a takeover completes a stream it did not open with the final message; its appends are refused", async () => {
    const event = await t.userEvent("taken over", { conversationType: "personal" });
    const { messageId } = await t.adapter.streams.start(replyTo(event, "half"), t.workspace);
    // Another instance: an adapter of its own, pointed at the same connector.
    const other = new TeamsAdapter({ ...endpointsOf(t.bf), timeoutMs: 1_000 });
    const refused = await other.streams.append(replyTo(event, " more"), messageId, t.workspace).catch((e) => e);
    expect(refused).toBeInstanceOf(StreamEndedError);
    await other.streams.complete(replyTo(event, "The whole answer."), messageId, t.workspace);
    expect(t.bf.activities.filter((a) => a.id === messageId)).toMatchObject([
      { activity: { text: "The whole answer." } },
    ]);
    // The stream is over: Teams refuses anything more on it.
    const late = await t.adapter.streams.append(replyTo(event, "late"), messageId, t.workspace).catch((e) => e);
    expect(late).toBeInstanceOf(StreamEndedError);
  });

  it("complete is safe to repeat: after the stream's final message landed it updates that message in place", async () => {
    // The opener finished its stream and died before its commit; the takeover completes the same stream again.
    const event = await t.userEvent("finished, then taken over", { conversationType: "personal" });
    const { messageId } = await t.adapter.streams.start(replyTo(event, "The whole "), t.workspace);
    await t.adapter.streams.stop(replyTo(event, "answer."), messageId, t.workspace);
    const other = new TeamsAdapter({ ...endpointsOf(t.bf), timeoutMs: 1_000 });
    await other.streams.complete(replyTo(event, "The whole answer."), messageId, t.workspace);
    await other.streams.complete(replyTo(event, "The whole answer."), messageId, t.workspace);
    expect(t.bf.activities.filter((a) => a.id === messageId)).toMatchObject([
      { activity: { type: "message", text: "The whole answer." }, updates: 2 },
    ]);
  });

  it("a stream whose time ran out is completed by an update: the message it showed gets the whole answer", async () => {
    const event = await t.userEvent("a long answer", { conversationType: "personal" });
    const { messageId } = await t.adapter.streams.start(replyTo(event, "Part "), t.workspace);
    await t.adapter.streams.append(replyTo(event, "one, "), messageId, t.workspace);
    t.bf.expireStreams();
    const late = await t.adapter.streams.append(replyTo(event, "part two"), messageId, t.workspace).catch((e) => e);
    expect(late).toBeInstanceOf(StreamEndedError);
    await t.adapter.streams.complete(replyTo(event, "Part one, part two."), messageId, t.workspace);
    expect(t.bf.streams.get(messageId)?.finished).toBe(true);
    expect(t.bf.activities.filter((a) => a.id === messageId)).toMatchObject([
      { activity: { type: "message", text: "Part one, part two." } },
    ]);
  });

  it("a 429 on a streaming update is a RateLimitedError: nothing was updated", async () => {
    const event = await t.userEvent("slow down", { conversationType: "personal" });
    const { messageId } = await t.adapter.streams.start(replyTo(event, "One"), t.workspace);
    t.bf.rateLimit(
      { conversationId: event.conversation.id, activityId: event.conversation.replyToId },
      {
        retryAfterSeconds: 1,
      },
    );
    const error = await t.adapter.streams.append(replyTo(event, " two"), messageId, t.workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(t.bf.streams.get(messageId)?.updates).toHaveLength(1);
  });
});
