import { randomBytes } from "node:crypto";
import { MemoryCredentialStore, resolveSettings } from "@resident/core";
import { adapterContract } from "../src/adapter-contract.ts";
import {
  FakeTestchat,
  mentionOf,
  ownMessageOf,
  signTestchatDelivery,
  type TestchatDelivery,
  testchatPlatform,
  twinOf,
} from "../src/testchat/index.ts";

adapterContract("testchat", async () => {
  const fake = await new FakeTestchat().start();
  const bot = fake.addBot();
  const signingSecret = randomBytes(16).toString("hex");
  const credentials = { apiToken: bot.token, signingSecret };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const adapter = testchatPlatform.createAdapter({
    env: { TESTCHAT_API_URL: fake.apiUrl },
    logger: quiet,
    limiter: { take: async () => 0 },
    credentials: new MemoryCredentialStore(),
  });
  const workspace = {
    id: "ws-testchat",
    tenantId: "tenant-1",
    platform: testchatPlatform.id,
    name: "Testchat",
    credentials,
    settings: resolveSettings({}, testchatPlatform.defaultFailMode),
    identity: await adapter.connect(credentials),
  };
  const sign = (delivery: TestchatDelivery) => signTestchatDelivery(delivery, signingSecret);
  const deliveryOf = (request: { rawBody: Buffer }): TestchatDelivery => JSON.parse(request.rawBody.toString("utf8"));
  return {
    platform: testchatPlatform,
    adapter,
    workspace,
    userMessage: (text) => sign(mentionOf(bot.id, text)),
    redelivery: (of) => ({ ...of }),
    twin: (of) => sign(twinOf(deliveryOf(of))),
    ownMessage: () => sign(ownMessageOf(bot.id)),
    tampered: (of) => ({ ...of, rawBody: Buffer.from(of.rawBody.toString("utf8").replace("<@", "<@!")) }),
    unsigned: (of) => ({ ...of, headers: { "content-type": "application/json" } }),
    replies: async () => fake.replies(),
    close: () => fake.close(),
  };
});
