import { randomBytes } from "node:crypto";
import { deliver, settle } from "@resident/testkit";
import {
  FakeTestchat,
  mentionOf,
  ownMessageOf,
  signTestchatDelivery,
  testchatPlatform,
  twinOf,
} from "@resident/testkit/testchat";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { platforms } from "../src/platforms.ts";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/*
 * A fourth platform, added the way every platform is: its package (testkit's Testchat) and one line of the list.
 * Nothing else of the server knows it, yet its webhook, admin API, console guide, pipeline and log redaction work.
 */
let s: InProcessService;
let testchat: FakeTestchat;
beforeAll(async () => {
  testchat = await new FakeTestchat().start();
  s = await startInProcessService({ TESTCHAT_API_URL: testchat.apiUrl }, [...platforms, testchatPlatform]);
});
afterAll(async () => {
  await s?.close();
  await testchat?.close();
});

async function connectWorkspace() {
  const bot = testchat.addBot();
  const signingSecret = randomBytes(16).toString("hex");
  const { tenantId, admin } = await s.operator.tenantWithAdmin("Testchat tenant");
  const workspace = await admin.createWorkspace(tenantId, {
    platform: "testchat",
    name: "Testchat",
    credentials: { apiToken: bot.token, signingSecret },
  });
  return { bot, signingSecret, workspace, url: `${s.url}${workspace.webhookPath}` };
}

describe("a platform added by its package and one line of the list", () => {
  it("has its webhook path and its guide in the admin API", async () => {
    const { workspace } = await connectWorkspace();
    expect(workspace.webhookPath).toBe(`/testchat/webhook/${workspace.id}`);
    const guides = await s.operator.expect<{ platform: string; displayName: string }[]>(200, "GET", "/platforms");
    expect(guides.map((guide) => guide.platform)).toEqual(["slack", "teams", "chatwork", "testchat"]);
    expect(guides.at(-1)).toMatchObject({ displayName: "Testchat", defaultFailMode: "open" });
  });

  it("answers a message once, through its twin, and ignores its own; its secrets never reach the log", async () => {
    const { bot, signingSecret, url } = await connectWorkspace();
    const question = mentionOf(bot.id, "is this platform wired in?");
    const sign = (delivery: typeof question) => signTestchatDelivery(delivery, signingSecret);
    const own = ownMessageOf(bot.id);
    const statuses = await Promise.all(
      [question, question, twinOf(question), own].map(async (d) => (await deliver(url, sign(d))).status),
    );
    expect(statuses).toEqual([200, 200, 200, 200]);
    const answers = () => testchat.posts.filter((post) => post.reply_to === question.message.id);
    await vi.waitFor(() => expect(answers()).toHaveLength(1), { timeout: 20_000, interval: 50 });
    await settle(1_500);
    expect(answers()).toHaveLength(1);
    expect(answers()[0]).toMatchObject({ room: "R1", author: bot.id, text: "answer to: is this platform wired in?" });
    expect(testchat.posts.filter((post) => post.reply_to === own.message.id)).toEqual([]);
    const log = s.logs.join("\n");
    for (const secret of [signingSecret, bot.token]) expect(log).not.toContain(secret);
  });

  it("refuses a delivery signed with another secret (401) and an unknown workspace (404)", async () => {
    const { bot, url, workspace } = await connectWorkspace();
    const forged = signTestchatDelivery(mentionOf(bot.id, "forged"), "not-the-signing-secret");
    expect((await deliver(url, forged)).status).toBe(401);
    const genuine = signTestchatDelivery(mentionOf(bot.id, "lost"), "x".repeat(16));
    expect((await deliver(url.replace(workspace.id, "ws_unknown"), genuine)).status).toBe(404);
  });
});
