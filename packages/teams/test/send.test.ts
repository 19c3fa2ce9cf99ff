import {
  type ChatEvent,
  OutcomeUnknownError,
  PermanentSendError,
  RateLimitedError,
  SendRejectedError,
} from "@resident/core";
import { FakeServer } from "@resident/testkit";
import type { ReplyTarget } from "@resident/testkit/teams";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamsAdapter } from "../src/index.ts";
import { appId, appPassword, endpointsOf, replyTo, startTeams, type TeamsHarness } from "./harness.ts";

describe("Teams send: one reply, posted once, at the fake connector", () => {
  let t: TeamsHarness;
  beforeAll(async () => {
    t = await startTeams();
  });
  afterAll(() => t?.bf.close());
  beforeEach(() => {
    t.bf.server.clearFaults();
  });

  const targetOf = (event: ChatEvent): ReplyTarget => ({
    conversationId: event.conversation.id,
    activityId: event.conversation.replyToId,
  });
  const attemptsAt = (event: ChatEvent) => t.bf.server.callsTo(t.bf.replyRoute(targetOf(event))).length;
  const tokenRequests = () => t.bf.server.callsTo("POST /botframework.com/oauth2/v2.0/token").length;
  const failureOf = (event: ChatEvent) =>
    t.adapter.send(replyTo(event), t.workspace).then(
      () => undefined,
      (error: unknown) => error,
    );

  it("posts one message activity as a reply to the user's activity, with the text, under the bot's token", async () => {
    const event = await t.userEvent("what is our refund policy?", { threadRootId: "1700000000000" });
    const before = t.bf.activities.length;
    const sent = await t.adapter.send(replyTo(event, "Refunds take **5 days**."), t.workspace);
    const posted = t.bf.activities.slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      conversationId: "19:channel0001@thread.tacv2;messageid=1700000000000",
      replyToId: event.conversation.replyToId,
      appId,
      id: sent.messageId,
      activity: {
        type: "message",
        text: "Refunds take **5 days**.",
        textFormat: "markdown",
        replyToId: event.conversation.replyToId,
        from: { id: `28:${appId}` },
        recipient: { id: event.author.id },
        conversation: { id: event.conversation.id, conversationType: "channel" },
      },
    });
  });

  it("fetches the bot's token once and reuses it", async () => {
    const event = await t.userEvent("one");
    await t.adapter.send(replyTo(event), t.workspace);
    const before = tokenRequests();
    await t.adapter.send(replyTo(await t.userEvent("two")), t.workspace);
    expect(tokenRequests()).toBe(before);
  });

  it.each([500, 503])("a %i after sending is an unknown outcome, and the request is not retried", async (status) => {
    const event = await t.userEvent(`fails with ${status}`);
    t.bf.fail(targetOf(event), status, 5);
    expect(await failureOf(event)).toBeInstanceOf(OutcomeUnknownError);
    expect(attemptsAt(event)).toBe(1);
  });

  it("a post that lands but is not answered in time is an unknown outcome, and is not resent", async () => {
    const event = await t.userEvent("slow answer");
    t.bf.acceptThenTimeOut(targetOf(event), 5_000);
    const before = t.bf.activities.length;
    expect(await failureOf(event)).toBeInstanceOf(OutcomeUnknownError);
    expect(t.bf.activities.length).toBe(before + 1);
    expect(attemptsAt(event)).toBe(1);
  });

  it("a connector that stalls past the timeout is an unknown outcome", async () => {
    const event = await t.userEvent("stalled");
    t.bf.stall(targetOf(event), 5_000);
    expect(await failureOf(event)).toBeInstanceOf(OutcomeUnknownError);
    expect(attemptsAt(event)).toBe(1);
  });

  it("a 429 is RateLimitedError with Retry-After's wait, without a retry of its own", async () => {
    const event = await t.userEvent("throttled");
    t.bf.rateLimit(targetOf(event), { retryAfterSeconds: 7 }, 5);
    const error = await failureOf(event);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7_000);
    expect(attemptsAt(event)).toBe(1);
  });

  it.each([429, 412, 502, 504])("a %i without Retry-After backs off exponentially from 2 s", async (status) => {
    const event = await t.userEvent(`throttled with ${status}`, { conversationId: `19:backoff${status}@thread.tacv2` });
    t.bf.rateLimit(targetOf(event), { status }, 2);
    const first = (await failureOf(event)) as RateLimitedError;
    const second = (await failureOf(event)) as RateLimitedError;
    expect(first).toBeInstanceOf(RateLimitedError);
    expect(first.retryAfterMs).toBe(2_000);
    expect(second.retryAfterMs).toBeGreaterThanOrEqual(2_800);
    expect(second.retryAfterMs).toBeLessThanOrEqual(3_200);
    await t.adapter.send(replyTo(event), t.workspace);
    t.bf.rateLimit(targetOf(event), { status }, 1);
    expect(((await failureOf(event)) as RateLimitedError).retryAfterMs).toBe(2_000);
  });

  it.each([400, 403, 404])("a %i is SendRejectedError: nothing was posted", async (status) => {
    const event = await t.userEvent(`refused with ${status}`);
    t.bf.fail(targetOf(event), status);
    expect(await failureOf(event)).toBeInstanceOf(SendRejectedError);
    expect(attemptsAt(event)).toBe(1);
  });

  it.each([
    [403, true],
    [404, true],
    [400, false],
  ])("a %i is refused for good (PermanentSendError): %s", async (status, permanent) => {
    const event = await t.userEvent(`refused for good with ${status}`);
    t.bf.fail(targetOf(event), status);
    expect((await failureOf(event)) instanceof PermanentSendError).toBe(permanent);
  });

  it("a refused token is dropped, so the next attempt fetches a new one", async () => {
    const event = await t.userEvent("token refused");
    t.bf.fail(targetOf(event), 401);
    expect(await failureOf(event)).toBeInstanceOf(SendRejectedError);
    const before = tokenRequests();
    await t.adapter.send(replyTo(event), t.workspace);
    expect(tokenRequests()).toBe(before + 1);
  });

  it("a connector that cannot be reached is SendRejectedError: nothing left", async () => {
    const closed = await new FakeServer({}).start();
    await closed.close();
    const event = await t.userEvent("unreachable");
    const elsewhere = {
      ...event,
      conversation: { ...event.conversation, address: { serviceUrl: `${closed.url}/amer/` } },
    };
    const error = await t.adapter.send(replyTo(elsewhere), t.workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendRejectedError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("no token, no post: a login failure is SendRejectedError and never shows the password", async () => {
    const event = await t.userEvent("login down");
    const adapter = new TeamsAdapter({ ...endpointsOf(t.bf), timeoutMs: 1_000 });
    const workspace = { ...t.workspace, credentials: { appId, appPassword: `${appPassword}-wrong` } };
    const error = await adapter.send(replyTo(event), workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendRejectedError);
    expect((error as Error).message).toMatch(/AADSTS7000215/);
    expect((error as Error).message).not.toContain(appPassword);
    expect(attemptsAt(event)).toBe(0);
  });
});
