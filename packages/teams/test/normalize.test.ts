import { type ChatEvent, type Inbound, MalformedPayloadError, resolveSettings, type Workspace } from "@resident/core";
import { type TeamsMessageOptions, teamsMessage } from "@resident/testkit/teams";
import { describe, expect, it } from "vitest";
import { TeamsAdapter, type TeamsCredentials } from "../src/index.ts";
import { fingerprintWindowMs } from "../src/message-key.ts";
import { appId, appPassword, fixture, unsignedRequest } from "./harness.ts";

const adapter = new TeamsAdapter();
const workspaceFor = (botAppId: string): Workspace<TeamsCredentials> => ({
  id: "ws-teams",
  tenantId: "tenant-a",
  platform: "teams",
  name: "Teams",
  credentials: { appId: botAppId, appPassword },
  settings: resolveSettings({}, "closed"),
  identity: { appId: botAppId, botId: `28:${botAppId}` },
});
const workspace = workspaceFor(appId);
const serviceUrl = "https://smba.trafficmanager.net/emea/";

const normalize = (activity: object, receivedAt = Date.now(), ws = workspace): Inbound =>
  adapter.normalize(unsignedRequest(activity), ws, receivedAt);
const eventOf = (inbound: Inbound): ChatEvent => {
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${JSON.stringify(inbound)}`);
  return inbound.event;
};
const message = (text: string, options: Partial<TeamsMessageOptions> = {}) =>
  teamsMessage({ appId, serviceUrl, text, ...options });

describe("Teams normalize: the fixtures", () => {
  it("a personal chat message becomes a ChatEvent addressed back to its conversation", () => {
    const ws = workspaceFor("c9e8c047-2a74-40a2-b28a-b162d5f5327c");
    const event = eventOf(adapter.normalize(fixture("teams-message-personal.msdocs.json"), ws, 1_000));
    expect(event).toMatchObject({
      platform: "teams",
      tenantId: "tenant-a",
      workspaceId: "ws-teams",
      text: "Hello Teams TestBot.Sending bold-italic rich text",
      receivedAt: 1_000,
      author: { id: expect.stringMatching(/^29:1XJKJ/), name: "Megan Bowen", isBot: false, isSelf: false },
      conversation: {
        id: expect.stringMatching(/^a:17I0kl9/),
        replyToId: "1485983408511",
        address: {
          serviceUrl: "https://smba.trafficmanager.net/amer/",
          tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
          conversationType: "personal",
          botId: "28:c9e8c047-2a74-40a2-b28a-b162d5f5327c",
          botName: "Teams TestBot",
        },
      },
    });
    expect(event.conversation.threadId).toBeUndefined();
    expect(event.eventId).toContain("1485983408511");
  });

  it("a channel @mention loses the mention and answers in the post's reply chain", () => {
    const ws = workspaceFor("00000000-1111-2222-3333-444444444444");
    const event = eventOf(adapter.normalize(fixture("teams-message-channel-botmention.synthetic.json"), ws, 1_000));
    expect(event).toMatchObject({
      text: "hello there",
      conversation: {
        id: "19:abc@thread.tacv2;messageid=1712345678901",
        threadId: "1712345678901",
        replyToId: "1712345678901",
        address: { conversationType: "channel", tenantId: "tttttttt-0000-0000-0000-000000000001" },
      },
    });
  });

  it("a channel message that mentions someone else is not for the bot", () => {
    const inbound = adapter.normalize(fixture("teams-message-channel-mention.msdocs.json"), workspace, 1_000);
    expect(inbound).toMatchObject({ kind: "ignore", reason: "not addressed to the bot" });
  });
});

describe("Teams normalize: what gets answered", () => {
  it("ignores the bot's own activities and other bots'", () => {
    const own = message("echo", { from: { id: `28:${appId}`, name: "Resident" } });
    expect(normalize(own)).toMatchObject({ kind: "ignore", reason: "our own message" });
    const other = message("beep", { from: { id: "28:another-bot", name: "Other" } });
    expect(normalize(other)).toMatchObject({ kind: "ignore", reason: "another bot's message" });
  });

  it("answers every 1:1 message, but group chats and channels only when the bot is mentioned", () => {
    expect(eventOf(normalize(message("hi", { conversationType: "personal" }))).text).toBe("hi");
    expect(normalize(message("hi", { conversationType: "groupChat", mention: false })).kind).toBe("ignore");
    expect(eventOf(normalize(message("hi", { conversationType: "groupChat" }))).text).toBe("hi");
    expect(normalize(message("hi", { conversationType: "channel", mention: false })).kind).toBe("ignore");
  });

  it("removes the bot's mentions by their entities, wherever they are, and keeps other people's", () => {
    const activity = message("ignored");
    activity.text = "Ask <at>Bob</at> or <at>Resident</at> about it <at>Resident</at>";
    activity.entities = [
      { type: "mention", mentioned: { id: `28:${appId}`, name: "Resident" }, text: "<at>Resident</at>" },
      { type: "mention", mentioned: { id: "29:bob", name: "Bob" }, text: "<at>Bob</at>" },
    ];
    expect(eventOf(normalize(activity)).text).toBe("Ask <at>Bob</at> or about it");
  });

  it("ignores a mention with nothing asked", () => {
    expect(normalize(message(""))).toMatchObject({ kind: "ignore", reason: "no text" });
  });

  it.each([
    ["messageUpdate", {}],
    ["messageDelete", {}],
    ["conversationUpdate", { membersAdded: [{ id: `28:${appId}` }] }],
    ["installationUpdate", { action: "add" }],
    ["invoke", { name: "adaptiveCard/action" }],
    ["messageReaction", { reactionsAdded: [{ type: "like" }] }],
  ])("ignores %s activities", (type, extra) => {
    expect(normalize({ ...message("x"), ...extra, type }).kind).toBe("ignore");
  });

  it("ignores activities of other channels", () => {
    expect(normalize({ ...message("hi"), channelId: "webchat" }).kind).toBe("ignore");
  });

  it("refuses a body that is not an activity", () => {
    expect(() => adapter.normalize({ rawBody: Buffer.from("nope"), headers: {}, query: {} }, workspace, 0)).toThrow(
      MalformedPayloadError,
    );
    const { serviceUrl: _dropped, ...withoutServiceUrl } = message("hi");
    expect(() => normalize(withoutServiceUrl)).toThrow(MalformedPayloadError);
  });
});

describe("Teams normalize: event and message keys", () => {
  const windowStart = Math.ceil(Date.parse("2025-03-04T10:00:00Z") / fingerprintWindowMs) * fingerprintWindowMs;
  const at = (ms: number) => new Date(windowStart + ms);

  it("a redelivery of the same activity keeps both keys", () => {
    const first = message("what is our refund policy?", { timestamp: at(5_000) });
    const original = eventOf(normalize(first));
    const again = eventOf(normalize(structuredClone(first), Date.now() + 15_000));
    expect(again.eventId).toBe(original.eventId);
    expect(again.messageKey).toBe(original.messageKey);
  });

  it("a retry with a new activity id and the same text inside the window keeps the message key", () => {
    const first = message("what is our refund policy?", { threadRootId: "1700000000000", timestamp: at(5_000) });
    const retry = { ...first, id: "1700000099999", timestamp: at(35_000).toISOString() };
    const [a, b] = [eventOf(normalize(first)), eventOf(normalize(retry))];
    expect(b.eventId).not.toBe(a.eventId);
    expect(b.messageKey).toBe(a.messageKey);
  });

  it("a retry of a new channel post keeps the message key, whichever ;messageid= it carries", () => {
    const first = message("status of order 42?", { id: "1700000000001", timestamp: at(1_000) });
    const retry = message("status of order 42?", { id: "1700000000777", timestamp: at(1_000) });
    const retryInOldThread = { ...retry, conversation: first.conversation };
    expect(retry.conversation.id).not.toBe(first.conversation.id);
    expect(eventOf(normalize(retry)).messageKey).toBe(eventOf(normalize(first)).messageKey);
    expect(eventOf(normalize(retryInOldThread)).messageKey).toBe(eventOf(normalize(first)).messageKey);
  });

  it("a retry with a new timestamp keeps the message key across any clock boundary", () => {
    const first = message("are we open on Sunday?", { timestamp: at(fingerprintWindowMs - 1) });
    const retry = { ...first, id: "1700000055555", timestamp: at(fingerprintWindowMs + 20_000).toISOString() };
    const before = eventOf(normalize(first, windowStart + fingerprintWindowMs - 1));
    const after = eventOf(normalize(retry, windowStart + fingerprintWindowMs + 20_000));
    expect(after.messageKey).toBe(before.messageKey);
  });

  it("marks the message key as a fingerprint that stands for one message only within the window", () => {
    const event = eventOf(normalize(message("yes", { conversationType: "personal", timestamp: at(10_000) })));
    expect(event.messageKeyWindowMs).toBe(fingerprintWindowMs);
  });

  it("another text, sender or conversation is another message", () => {
    const base = { threadRootId: "1700000000000", timestamp: at(1_000) };
    const key = (text: string, options = {}) => eventOf(normalize(message(text, { ...base, ...options }))).messageKey;
    const original = key("yes");
    expect(key("no")).not.toBe(original);
    expect(key("yes", { from: { id: "29:bob", name: "Bob" } })).not.toBe(original);
    expect(key("yes", { conversationId: "19:other@thread.tacv2" })).not.toBe(original);
  });

  it("keys are scoped by the Teams tenant", () => {
    const activity = message("hi", { timestamp: at(1_000), id: "1700000000321" });
    const elsewhere = message("hi", { timestamp: at(1_000), id: "1700000000321", tenantId: "other-tenant" });
    const [a, b] = [eventOf(normalize(activity)), eventOf(normalize(elsewhere))];
    expect(b.eventId).not.toBe(a.eventId);
    expect(b.messageKey).not.toBe(a.messageKey);
  });
});

describe("Teams normalize: what the activity carries of its thread", () => {
  it("the message a reply quotes, from Teams' text/html blockquote, as plain text under its sender", () => {
    const activity = {
      ...message("does this still hold?"),
      attachments: [
        {
          contentType: "text/html",
          content:
            '<blockquote itemscope="" itemtype="http://schema.skype.com/Reply" itemid="1700000000001">' +
            '<strong itemprop="mri" itemid="8:orgid:alice">Alice Tanaka</strong><span itemprop="time" itemid="1700000000001"></span>' +
            '<p itemprop="preview">The deploy freeze starts &amp; ends <b>Friday</b></p></blockquote>' +
            "<p>does this still hold?</p>",
        },
      ],
    };
    expect(eventOf(normalize(activity)).context).toEqual([
      { id: "1700000000001", author: "Alice Tanaka", isBot: false, text: "The deploy freeze starts & ends Friday" },
    ]);
  });

  it("the message a reply quotes, from a quotedReply entity", () => {
    const base = message("and after that?");
    const activity = {
      ...base,
      entities: [
        ...(base.entities ?? []),
        {
          type: "quotedReply",
          quotedReply: { messageId: "1700000000002", senderName: "Bob", preview: "Office closed Monday" },
        },
      ],
    };
    expect(eventOf(normalize(activity)).context).toEqual([
      { id: "1700000000002", author: "Bob", isBot: false, text: "Office closed Monday" },
    ]);
  });

  it("nothing for a message that quotes nothing (Teams mirrors its text as text/html too)", () => {
    const activity = {
      ...message("plain question"),
      attachments: [{ contentType: "text/html", content: "<p>plain question</p>" }],
    };
    expect(eventOf(normalize(activity)).context).toBeUndefined();
  });
});
