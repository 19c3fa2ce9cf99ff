import { InvalidCredentialsError } from "@resident/core";
import { MemoryRateLimiter } from "@resident/store";
import { FakeChatwork } from "@resident/testkit/chatwork";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatworkAdapter, chatworkCredentialsSchema } from "../src/index.ts";
import { accountWebhookToken, bot, directRoom, groupRoom, roomWebhookToken } from "./harness.ts";

describe("ChatworkAdapter.connect and credentials", () => {
  const fake = new FakeChatwork({
    accounts: [bot],
    rooms: [
      { roomId: 1, type: "my" },
      { roomId: groupRoom, type: "group" },
      { roomId: directRoom, type: "direct" },
    ],
  });
  let adapter: ChatworkAdapter;
  beforeAll(async () => {
    await fake.start();
    adapter = new ChatworkAdapter({ apiUrl: `${fake.apiUrl}/`, limiter: new MemoryRateLimiter() });
  });
  afterAll(() => fake.close());

  it("learns the bot's account from GET /me and its direct chats from GET /rooms", async () => {
    const credentials = chatworkCredentialsSchema.parse({ apiToken: bot.apiToken, webhookToken: accountWebhookToken });
    await expect(adapter.connect(credentials)).resolves.toEqual({
      accountId: String(bot.accountId),
      name: bot.name,
      directRoomIds: String(directRoom),
    });
    expect(fake.server.calls.at(-1)?.headers["x-chatworktoken"]).toBe(bot.apiToken);
  });

  it("turns a rejected API token into InvalidCredentialsError with Chatwork's text, never the token", async () => {
    const apiToken = "a-token-chatwork-does-not-know";
    const error = await adapter.connect({ apiToken, webhookTokens: [accountWebhookToken] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidCredentialsError);
    expect((error as Error).message).toContain("Invalid API token");
    expect((error as Error).message).not.toContain(apiToken);
  });

  it("takes one webhook token or several, and always hands a list on", () => {
    expect(chatworkCredentialsSchema.parse({ apiToken: "t", webhookToken: accountWebhookToken })).toEqual({
      apiToken: "t",
      webhookTokens: [accountWebhookToken],
    });
    const both = { apiToken: "t", webhookTokens: [accountWebhookToken, roomWebhookToken] };
    expect(chatworkCredentialsSchema.parse(both)).toEqual(both);
    expect(chatworkCredentialsSchema.parse(chatworkCredentialsSchema.parse(both))).toEqual(both);
  });

  it("refuses malformed credentials without repeating them", () => {
    for (const bad of [
      { apiToken: "t" },
      { apiToken: "", webhookToken: accountWebhookToken },
      { apiToken: "t", webhookTokens: [] },
      { apiToken: "t", webhookToken: "not base64 %%%" },
      { apiToken: "t", webhookToken: accountWebhookToken, webhookTokens: [roomWebhookToken] },
    ]) {
      const result = chatworkCredentialsSchema.safeParse(bad);
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error)).not.toContain("%%%");
    }
  });
});
