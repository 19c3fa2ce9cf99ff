import { type ChatEvent, type Inbound, type Logger, MalformedPayloadError, VerificationError } from "@resident/core";
import {
  appMention,
  botMessage,
  channelMessage,
  directMessage,
  messageChanged,
  ownMessage,
  urlVerification,
} from "@resident/testkit/slack";
import { describe, expect, it } from "vitest";
import { SlackAdapter } from "../src/index.ts";
import { delivery, fixture, slackWorkspace } from "./harness.ts";

const receivedAt = 1_700_000_000_000;
const adapter = new SlackAdapter();
// The bot the bolt-python fixtures are for: W111 is mentioned in their app_mention.
const bolt = slackWorkspace({ botUserId: "W111", botId: "B111", teamId: "T111" });

function normalize(body: unknown, workspace = bolt, headers?: Record<string, string>): Inbound {
  return adapter.normalize(delivery(body, headers), workspace, receivedAt);
}

function message(body: unknown, workspace = bolt): ChatEvent {
  const inbound = normalize(body, workspace);
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${JSON.stringify(inbound)}`);
  return inbound.event;
}

function ignoredBecause(body: unknown, workspace = bolt): string {
  const inbound = normalize(body, workspace);
  if (inbound.kind !== "ignore") throw new Error(`expected ignore, got ${inbound.kind}`);
  return inbound.reason;
}

/** A fixture with its inner event changed. */
function withEvent(name: string, change: Record<string, unknown>) {
  const body = fixture(name);
  return { ...body, event: { ...(body.event as object), ...change } };
}

const channelFixture = "event_callback_message_channel.bolt-python-fixture.json";
const threadFixture = "event_callback_message_thread_reply.bolt-python-fixture.json";

describe("normalize: what is answered", () => {
  it("an app_mention becomes a ChatEvent keyed by app and event id, and by channel and ts", () => {
    const event = message(fixture("event_callback_app_mention.bolt-python-fixture.json"));
    expect(event).toEqual({
      platform: "slack",
      tenantId: "tenant_1",
      workspaceId: "ws_slack",
      eventId: "A111:Ev111",
      messageKey: "C111:1595926230.009600",
      conversation: { id: "C111", threadId: "1595926230.009600", replyToId: "1595926230.009600" },
      author: { id: "W222", isBot: false, isSelf: false },
      text: "Hi there!",
      receivedAt,
    });
  });

  it("the Slack docs' app_mention strips the mention of that app's bot user", () => {
    const docs = slackWorkspace({ botUserId: "U0LAN0Z89", botId: "B0LAN0Z89", teamId: "T123ABC456" });
    const event = message(fixture("event_callback_app_mention.slack-docs.json"), docs);
    expect(event.text).toBe("is it everything a river should be?");
    expect(event.eventId).toBe("A123ABC456:Ev123ABC456");
  });

  it("a reply inside a thread answers in that thread, keyed by the reply's own ts", () => {
    const event = message(withEvent(threadFixture, { text: "<@W111> When Slack was released?" }));
    expect(event.conversation).toEqual({ id: "C111", threadId: "1726133698.626339", replyToId: "1726133700.887259" });
    expect(event.messageKey).toBe("C111:1726133700.887259");
    expect(event.text).toBe("When Slack was released?");
  });

  it("a direct message needs no mention", () => {
    const event = message(withEvent(threadFixture, { channel: "D111", channel_type: "im" }));
    expect(event).toMatchObject({ text: "When Slack was released?", conversation: { id: "D111" } });
  });

  it("the app_mention and message twins of one user message share the message key, not the event id", () => {
    const twin = withEvent(channelFixture, { text: "<@U0BOT> Hi there! Thanks for sharing the info!" });
    const mention = { ...withEvent(channelFixture, { type: "app_mention", text: twin.event.text }), event_id: "Ev222" };
    const workspace = slackWorkspace({ botUserId: "U0BOT", botId: "B0BOT", teamId: "T111" });
    const fromMessage = message(twin, workspace);
    const fromMention = message(mention, workspace);
    expect(fromMessage.messageKey).toBe("C111:1610261659.001400");
    expect(fromMention.messageKey).toBe(fromMessage.messageKey);
    expect(fromMention.eventId).not.toBe(fromMessage.eventId);
    expect(fromMention.text).toBe(fromMessage.text);
  });

  it("strips only our mention, wherever it is and in its legacy form", () => {
    const text = (value: string) => message(withEvent(threadFixture, { text: value })).text;
    expect(text("hey <@W111> what about <@W999>?")).toBe("hey what about <@W999>?");
    expect(text("<@W111|resident>   refunds?\n")).toBe("refunds?");
  });

  it("a file shared by a person, or a thread reply also sent to the channel, is still a person's message", () => {
    for (const subtype of ["file_share", "thread_broadcast"]) {
      expect(message(withEvent(threadFixture, { subtype, text: "<@W111> look" })).text).toBe("look");
    }
  });

  it("carries Slack's retry headers on messages and on ignored deliveries", () => {
    const headers = { "x-slack-retry-num": "2", "x-slack-retry-reason": "http_timeout" };
    const answered = normalize(fixture("event_callback_app_mention.bolt-python-fixture.json"), bolt, headers);
    const ignored = normalize(fixture("event_callback_message_changed.bolt-python-fixture.json"), bolt, headers);
    expect(answered).toMatchObject({ kind: "message", retry: { attempt: 2, reason: "http_timeout" } });
    expect(ignored).toMatchObject({ kind: "ignore", retry: { attempt: 2, reason: "http_timeout" } });
    expect(normalize(fixture("event_callback_app_mention.bolt-python-fixture.json"))).not.toHaveProperty(
      "retry.attempt",
    );
  });
});

describe("normalize: the self-loop guard and other bots", () => {
  const otherApp = "event_callback_bot_message_other_app.bolt-python-fixture.json";

  it("ignores another app's bot, even one that mentions us", () => {
    expect(ignoredBecause(fixture(otherApp))).toBe("another bot's message");
    expect(ignoredBecause(withEvent(otherApp, { text: "<@W111> ping" }))).toBe("another bot's message");
    expect(ignoredBecause(withEvent(otherApp, { bot_id: undefined, subtype: "bot_message" }))).toBe(
      "another bot's message",
    );
  });

  it("ignores our own messages by bot id, by bot user and by app", () => {
    expect(ignoredBecause(fixture(otherApp), slackWorkspace({ botUserId: "W111", botId: "B999" }))).toBe(
      "our own message",
    );
    expect(ignoredBecause(fixture(otherApp), slackWorkspace({ botUserId: "UB111", botId: "B111" }))).toBe(
      "our own message",
    );
    expect(ignoredBecause({ ...fixture(otherApp), api_app_id: "A222" })).toBe("our own message");
    const mentioningItself = withEvent(channelFixture, { text: "<@W111> note to self" });
    expect(ignoredBecause(mentioningItself)).toBe("our own message");
  });
});

describe("normalize: what is not a question", () => {
  it("ignores edits and deletes", () => {
    expect(ignoredBecause(fixture("event_callback_message_changed.bolt-python-fixture.json"))).toMatch(
      /message_changed/,
    );
    expect(ignoredBecause(withEvent(threadFixture, { subtype: "message_deleted", text: "<@W111>" }))).toMatch(
      /message_deleted/,
    );
  });

  it("ignores a channel message that does not mention the bot", () => {
    expect(ignoredBecause(fixture(threadFixture))).toMatch(/does not mention/);
    const workspace = slackWorkspace({ botUserId: "U0BOT", botId: "B0BOT" });
    expect(ignoredBecause(fixture(channelFixture), workspace)).toMatch(/does not mention/);
  });

  it("ignores event types it does not handle", () => {
    expect(ignoredBecause(fixture("event_callback_envelope_full.slack-docs.json"))).toBe(
      "name_of_event events are not handled",
    );
  });
});

describe("normalize: handshakes and notices", () => {
  it("answers url_verification with its challenge", () => {
    expect(normalize(fixture("url_verification.json"))).toEqual({
      kind: "respond",
      status: 200,
      body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" },
    });
  });

  it("answers Slack's ssl_check probe, which is not signed; any other unsigned form is refused", async () => {
    const form = (body: string) => ({
      rawBody: Buffer.from(body),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      query: {},
    });
    const probe = form("ssl_check=1&token=abc");
    await expect(adapter.verify(probe, bolt, receivedAt)).resolves.toBeUndefined();
    expect(adapter.normalize(probe, bolt, receivedAt)).toMatchObject({ kind: "respond", status: 200 });
    for (const body of ["command=%2Fask&text=hi", "ssl_check=0"]) {
      await expect(adapter.verify(form(body), bolt, receivedAt)).rejects.toBeInstanceOf(VerificationError);
    }
  });

  it("ignores app_rate_limited and warns through the logger", () => {
    const warnings: { obj: object; msg?: string }[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (obj, msg) => warnings.push({ obj, msg }),
      error: () => {},
    };
    const inbound = new SlackAdapter({ logger }).normalize(
      delivery(fixture("app_rate_limited.slack-docs.json")),
      bolt,
      receivedAt,
    );
    expect(inbound).toMatchObject({ kind: "ignore", reason: expect.stringMatching(/app_rate_limited/) });
    expect(warnings).toEqual([
      {
        obj: { workspaceId: "ws_slack", teamId: "T123ABC456", minuteRateLimited: 1518467820 },
        msg: expect.stringMatching(/app_rate_limited/),
      },
    ]);
  });
});

describe("normalize: malformed bodies", () => {
  it("throws MalformedPayloadError naming what is wrong", () => {
    const malformed = (body: unknown) => {
      try {
        normalize(body);
      } catch (error) {
        expect(error).toBeInstanceOf(MalformedPayloadError);
        return (error as Error).message;
      }
      throw new Error("expected MalformedPayloadError");
    };
    expect(malformed("{not json")).toBe("the body is not JSON");
    expect(malformed([])).toMatch(/expected object/);
    expect(malformed({ challenge: "x" })).toMatch(/^malformed Events API body: type: /);
    expect(malformed({ type: "url_verification" })).toMatch(/challenge/);
    const { event_id: _eventId, ...withoutId } = fixture("event_callback_app_mention.bolt-python-fixture.json");
    expect(malformed(withoutId)).toMatch(/event_id/);
    const envelope = fixture("event_callback_app_mention.bolt-python-fixture.json");
    expect(malformed({ ...envelope, event: "app_mention" })).toMatch(/^malformed event_callback: event: /);
    expect(malformed({ ...envelope, event: { text: "no type" } })).toMatch(/^malformed event_callback: event: /);
    expect(malformed(withEvent("event_callback_app_mention.bolt-python-fixture.json", { channel: undefined }))).toMatch(
      /channel/,
    );
  });
});

describe("the testkit's Slack builders normalize like the real bodies", () => {
  const bot = { teamId: "T0TEAM", appId: "A0APP", userId: "U0BOT", botId: "B0BOT" };
  const workspace = slackWorkspace({ botUserId: bot.userId, botId: bot.botId, teamId: bot.teamId });

  it("a mention, its channel twin and a direct message are answered", () => {
    const mention = appMention(bot, "hello", { channel: "C0CHAN", ts: "1700000000.000001" });
    const twin = channelMessage(bot, "hello", { channel: "C0CHAN", ts: "1700000000.000001" });
    expect(message(mention, workspace)).toMatchObject({ text: "hello", messageKey: "C0CHAN:1700000000.000001" });
    expect(message(twin, workspace).messageKey).toBe("C0CHAN:1700000000.000001");
    expect(message(directMessage(bot, "psst"), workspace).text).toBe("psst");
  });

  it("another bot, our own post and an edit are ignored; the handshake is answered", () => {
    expect(ignoredBecause(botMessage(bot, "hello"), workspace)).toBe("another bot's message");
    expect(ignoredBecause(ownMessage(bot), workspace)).toBe("our own message");
    expect(ignoredBecause(messageChanged(bot, "edited"), workspace)).toMatch(/message_changed/);
    expect(normalize(urlVerification("abc"), workspace)).toMatchObject({ kind: "respond", body: { challenge: "abc" } });
  });
});
