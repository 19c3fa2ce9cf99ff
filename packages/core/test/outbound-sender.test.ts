import { describe, expect, it } from "vitest";
import { OutcomeUnknownError, RateLimitedError, SendRejectedError } from "../src/errors.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import { UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

const ws = workspace("ws-1");
const never = new AbortController().signal;
const sender = (rateLimitBudgetMs = 1_000) =>
  new OutboundSender({ rateLimitBudgetMs, reconcileAttempts: 2, reconcileDelayMs: 10 }, () => 0);
const reply = () => {
  const event = chatEvent({ platform: "unit" });
  return { event, text: "the answer", replyKey: `reply:${event.workspaceId}:${event.messageKey}` };
};

describe("OutboundSender", () => {
  it("waits out 429s within its budget and posts once", async () => {
    const platform = new UnitPlatform();
    platform.sendFailures.push(new RateLimitedError(20), new RateLimitedError(20));
    expect(await sender().send(platform, ws, reply(), never)).toEqual({ status: "sent", messageId: "m1" });
    expect(platform.posts).toHaveLength(1);
  });

  it("gives the job back with the 429 once the budget would be spent, having posted nothing", async () => {
    const platform = new UnitPlatform();
    platform.sendFailures.push(new RateLimitedError(20), new RateLimitedError(500));
    await expect(sender(100).send(platform, ws, reply(), never)).rejects.toBeInstanceOf(RateLimitedError);
    expect(platform.posts).toHaveLength(0);
  });

  it("after an unknown outcome reads the platform back: found is sent, and never posted again", async () => {
    const platform = new UnitPlatform();
    platform.failuresAfterPost.push(new OutcomeUnknownError("timed out"));
    expect(await sender().send(platform, ws, reply(), never)).toEqual({ status: "sent", messageId: "m1" });
    expect(platform.posts).toHaveLength(1);
  });

  it("after an unknown outcome whose post is certainly absent, throws SendRejectedError so the job retries", async () => {
    const platform = new UnitPlatform();
    platform.sendFailures.push(new OutcomeUnknownError("502 before posting"));
    await expect(sender().send(platform, ws, reply(), never)).rejects.toBeInstanceOf(SendRejectedError);
    expect(platform.posts).toHaveLength(0);
  });

  it("calls an unknown outcome unknown where the platform cannot be read back, and never resends", async () => {
    const unreadable = new UnitPlatform();
    unreadable.findReply = undefined;
    unreadable.failuresAfterPost.push(new OutcomeUnknownError("timed out"));
    expect(await sender().send(unreadable, ws, reply(), never)).toEqual({ status: "unknown" });

    const failing = new UnitPlatform();
    failing.findReply = () => Promise.reject(new Error("listing failed"));
    failing.failuresAfterPost.push(new OutcomeUnknownError("timed out"));
    expect(await sender().send(failing, ws, reply(), never)).toEqual({ status: "unknown" });
    expect([unreadable.posts.length, failing.posts.length]).toEqual([1, 1]);
  });

  it("resumes a post an earlier holder began: found is sent, absent is posted, unreadable is left alone", async () => {
    const platform = new UnitPlatform();
    const begun = reply();
    await platform.send(begun);
    expect(await sender().resume(platform, ws, begun, never)).toEqual({ status: "sent", messageId: "m1" });
    expect(await sender().resume(platform, ws, reply(), never)).toEqual({ status: "sent", messageId: "m2" });
    platform.findReply = undefined;
    expect(await sender().resume(platform, ws, reply(), never)).toEqual({ status: "unknown" });
    expect(platform.posts).toHaveLength(2);
  });
});
