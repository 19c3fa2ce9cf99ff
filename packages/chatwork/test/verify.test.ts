import { readFileSync } from "node:fs";
import { MalformedPayloadError, VerificationError } from "@resident/core";
import { signChatworkWebhook } from "@resident/testkit/chatwork";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyChatworkSignature } from "../src/index.ts";
import { accountWebhookToken, chatworkWorld, mentionDelivery, roomWebhookToken } from "./harness.ts";

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);
const vector = {
  rawBody: readFileSync(fixture("chatwork-message_created.blog-test-vector.raw")),
  ...(JSON.parse(readFileSync(fixture("chatwork-message_created.blog-test-vector.meta.json"), "utf8")) as {
    webhook_token: string;
    "x-chatworkwebhooksignature": string;
  }),
};

describe("verifyChatworkSignature", () => {
  it("accepts Chatwork's published test vector", () => {
    expect(vector.rawBody.at(-1)).toBe("}".charCodeAt(0));
    expect(verifyChatworkSignature(vector.rawBody, vector["x-chatworkwebhooksignature"], vector.webhook_token)).toBe(
      true,
    );
  });

  it("rejects the vector with one byte of the body changed, or under another token", () => {
    const changed = Buffer.from(vector.rawBody.toString("utf8").replace('"body":"test"', '"body":"tesT"'));
    expect(verifyChatworkSignature(changed, vector["x-chatworkwebhooksignature"], vector.webhook_token)).toBe(false);
    expect(verifyChatworkSignature(vector.rawBody, vector["x-chatworkwebhooksignature"], roomWebhookToken)).toBe(false);
  });

  it("answers false, not a crash, for a signature in the wrong format", () => {
    for (const wrong of [
      "",
      "abc",
      "G7Gtrh5Ee6d8erOVXhWPtUrkNJqqIT5vwLU50KhyLQk",
      `${"!".repeat(43)}=`,
      "a".repeat(88),
    ]) {
      expect(verifyChatworkSignature(vector.rawBody, wrong, vector.webhook_token)).toBe(false);
    }
  });
});

describe("ChatworkAdapter.verify", () => {
  let world: Awaited<ReturnType<typeof chatworkWorld>>;
  beforeAll(async () => {
    world = await chatworkWorld();
  });
  afterAll(() => world.close());
  const verify = (request: Parameters<typeof world.adapter.verify>[0], now = Date.now()) =>
    world.adapter.verify(request, world.workspace, now);

  it("accepts the signature as a header alone or as a query parameter alone, under any of the workspace's tokens", async () => {
    const payload = JSON.parse(mentionDelivery("hi").rawBody.toString("utf8"));
    for (const webhookToken of [accountWebhookToken, roomWebhookToken]) {
      for (const placement of ["header", "query"] as const) {
        await expect(verify(signChatworkWebhook({ webhookToken, body: payload, placement }))).resolves.toBeUndefined();
      }
    }
  });

  it("reads a query signature whose '+' a query parser turned into a space", async () => {
    let signed = mentionDelivery("plus");
    while (!signed.signature.includes("+")) signed = mentionDelivery("plus");
    const query = { chatwork_webhook_signature: signed.signature.replaceAll("+", " ") };
    await expect(verify({ ...signed, headers: {}, query })).resolves.toBeUndefined();
  });

  it("rejects a bad signature in the header form and in the query form", async () => {
    const genuine = mentionDelivery("hello");
    const forged = signChatworkWebhook({ webhookToken: Buffer.alloc(32, 7).toString("base64"), body: "x" }).signature;
    await expect(
      verify({ ...genuine, headers: { "x-chatworkwebhooksignature": forged }, query: {} }),
    ).rejects.toBeInstanceOf(VerificationError);
    await expect(
      verify({ ...genuine, headers: {}, query: { chatwork_webhook_signature: forged } }),
    ).rejects.toBeInstanceOf(VerificationError);
  });

  it("rejects a delivery without a signature, and one with a signature in the wrong format", async () => {
    const genuine = mentionDelivery("hello");
    await expect(verify({ ...genuine, headers: {}, query: {} })).rejects.toThrow("missing Chatwork webhook signature");
    await expect(
      verify({ ...genuine, headers: { "x-chatworkwebhooksignature": "not base64 at all" }, query: {} }),
    ).rejects.toBeInstanceOf(VerificationError);
  });

  it("rejects a signed body once it is older than the event key's lifetime: only a replay can be that old", async () => {
    const later = Date.now() + (world.workspace.settings.eventTtlSeconds + 60) * 1000;
    await expect(verify(mentionDelivery("old news"), later)).rejects.toThrow("stale Chatwork delivery");
  });

  it("turns a signed body that is not JSON, or not a Chatwork event, into MalformedPayloadError", async () => {
    const notJson = signChatworkWebhook({ webhookToken: accountWebhookToken, body: "{not json" });
    await expect(verify(notJson)).rejects.toBeInstanceOf(MalformedPayloadError);
    expect(() => world.adapter.normalize(notJson, world.workspace, Date.now())).toThrow(MalformedPayloadError);
    const numericId = mentionDelivery("x")
      .rawBody.toString("utf8")
      .replace(/"message_id":"(\d+)"/, '"message_id":$1');
    const signed = signChatworkWebhook({ webhookToken: accountWebhookToken, body: numericId });
    expect(() => world.adapter.normalize(signed, world.workspace, Date.now())).toThrow(MalformedPayloadError);
  });
});
