import { describe, expect, it } from "vitest";
import {
  mentionToMe,
  messageCreated,
  messageUpdated,
  nextChatworkMessageId,
  signChatworkWebhook,
} from "../src/chatwork/index.ts";

/** Chatwork's published test vector (Chatwork Creator's Note, 2017-11-22). */
const vector = {
  webhookToken: "A9ne+ygvdV0IZBaPFV2zC1e5Bk+IsI14BPwieRoBQNU=",
  rawBody:
    '{"webhook_setting_id":"246","webhook_event_type":"message_created","webhook_event_time":1511238729,"webhook_event":{"message_id":"984676321621704704","room_id":36818150,"account_id":1484814,"body":"test","send_time":1511238729,"update_time":0}}',
  signature: "G7Gtrh5Ee6d8erOVXhWPtUrkNJqqIT5vwLU50KhyLQk=",
};

describe("signChatworkWebhook", () => {
  it("reproduces Chatwork's published test vector", () => {
    const signed = signChatworkWebhook({ webhookToken: vector.webhookToken, body: vector.rawBody });
    expect(signed.signature).toBe(vector.signature);
    expect(signed.rawBody.toString("utf8")).toBe(vector.rawBody);
  });

  it("serializes a payload compactly, as Chatwork does: the builder's output for the vector's event signs the same", () => {
    const payload = messageCreated({
      webhookSettingId: "246",
      accountId: 1484814,
      roomId: 36818150,
      messageId: "984676321621704704",
      body: "test",
      time: 1511238729,
    });
    expect(signChatworkWebhook({ webhookToken: vector.webhookToken, body: payload }).signature).toBe(vector.signature);
  });

  it("puts the signature in the header, the query parameter, or both (Chatwork's own way)", () => {
    const sign = (placement?: "header" | "query" | "both") =>
      signChatworkWebhook({ webhookToken: vector.webhookToken, body: vector.rawBody, placement });
    expect(sign().headers["x-chatworkwebhooksignature"]).toBe(vector.signature);
    expect(sign().query.chatwork_webhook_signature).toBe(vector.signature);
    expect(sign("header").query).toEqual({});
    expect(sign("query").headers["x-chatworkwebhooksignature"]).toBeUndefined();
    expect(sign("query").query.chatwork_webhook_signature).toBe(vector.signature);
  });
});

describe("Chatwork webhook builders", () => {
  it("shape mention_to_me like the captured fixture, with long digit-string message ids", () => {
    const payload = mentionToMe({
      fromAccountId: 624077,
      toAccountId: 3430971,
      roomId: 125733107,
      body: "[To:3430971] hi",
    });
    expect(Object.keys(payload)).toEqual([
      "webhook_setting_id",
      "webhook_event_type",
      "webhook_event_time",
      "webhook_event",
    ]);
    expect(Object.keys(payload.webhook_event)).toEqual([
      "from_account_id",
      "to_account_id",
      "room_id",
      "message_id",
      "body",
      "send_time",
      "update_time",
    ]);
    const messageId = payload.webhook_event.message_id as string;
    expect(messageId).toMatch(/^\d{19}$/);
    expect(BigInt(messageId) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it("shape message_created and message_updated like the test vector's event", () => {
    const created = messageCreated({ accountId: 1, roomId: 2, body: "b" });
    expect(Object.keys(created.webhook_event)).toEqual([
      "message_id",
      "room_id",
      "account_id",
      "body",
      "send_time",
      "update_time",
    ]);
    expect(created.webhook_event.update_time).toBe(0);
    const updated = messageUpdated({ accountId: 1, roomId: 2, body: "b2", time: 1_700_000_000 });
    expect(updated).toMatchObject({
      webhook_event_type: "message_updated",
      webhook_event: { update_time: 1_700_000_000 },
    });
  });

  it("hands out a new message id each time", () => {
    expect(nextChatworkMessageId()).not.toBe(nextChatworkMessageId());
  });
});
