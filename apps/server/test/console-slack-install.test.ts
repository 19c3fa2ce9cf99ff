import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { en as t } from "@resident/admin/i18n/en";
import { settle } from "@resident/testkit";
import { appMention, appUninstalled, type FakeInstallTarget, type FakeSlackBot } from "@resident/testkit/slack";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { axeViolations } from "./support/axe.ts";
import { type Browser, openBrowser } from "./support/browser.ts";
import type { InProcessService } from "./support/in-process-service.ts";
import { type DistributedAppService, startDistributedAppService } from "./support/slack-install.ts";

const output = fileURLToPath(new URL("../../../test-output/console/en/", import.meta.url));
let s: InProcessService;
let atTheAppUrl: DistributedAppService["atTheAppUrl"];
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Socket Mode too (SLACK_APP_TOKEN): the app's connections shown on each installation's page.
  ({ s, atTheAppUrl } = await startDistributedAppService({ socketMode: true }));
  await mkdir(output, { recursive: true });
  browser = await openBrowser(s.url, { locale: "en-US", alsoAllowed: [s.slack.url] });
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe("Add to Slack in the console", () => {
  it("installs two workspaces through Slack's pages; each one's events at the one URL are answered in it", async () => {
    const tenant = await s.operator.tenantWithAdmin("Acme");
    const targets = [
      s.slack.oauth.offer({ teamName: "Acme Sales" }),
      s.slack.oauth.offer({ teamName: "Acme Support" }),
    ];
    await page.goto(`${s.url}/admin/`);
    await page.getByLabel(t.signIn.tokenLabel).fill(tenant.token);
    await page.getByRole("button", { name: t.signIn.title }).click();
    // The tenant's own page, not any first heading: the sign-in form has one too, and leaving before the token is
    // kept signs the tab out.
    await page.getByRole("heading", { level: 1, name: "Acme" }).waitFor();

    const installed: { workspaceId: string; bot: FakeSlackBot; target: FakeInstallTarget }[] = [];
    for (const target of targets) {
      await page.goto(`${s.url}/admin/tenants/${tenant.tenantId}`);
      await page.getByRole("button", { name: t.workspaces.install("Slack") }).click();
      // Slack's page: the admin picks the workspace and allows the app.
      await page.waitForURL(`${s.slack.oauthUrl}?**`);
      await page.screenshot({ path: `${output}slack-authorize.png` });
      await page.getByRole("button", { name: `Allow in ${target.teamName}` }).click();
      // Back at the console, on the new workspace's page.
      await page.waitForURL(new RegExp(`/admin/tenants/${tenant.tenantId}/workspaces/ws_[\\w-]+$`));
      await page.getByRole("heading", { level: 1, name: target.teamName }).waitFor();
      await page.getByText(t.workspace.installedHelp("Slack")).waitFor();
      const workspaceId = page.url().split("/").at(-1) as string;
      installed.push({ workspaceId, bot: s.slack.oauth.bots().at(-1) as FakeSlackBot, target });
    }
    expect(s.slack.callsTo("oauth.v2.access")).toHaveLength(2);
    // On the second installation's page: the app's connections, the same ones the first one's events come over.
    await page.getByText(t.connections.appIntro).waitFor();
    const connections = page.getByRole("table", { name: t.connections.caption });
    await vi.waitFor(
      async () => expect(await connections.getByRole("row").filter({ hasText: t.connections.open }).count()).toBe(2),
      { timeout: 15_000 },
    );
    await page.getByText(t.connections.summary(2, 1)).waitFor();
    await connections.getByText("test-instance").first().waitFor();
    await page.screenshot({ path: `${output}slack-app-connections.png`, fullPage: true });
    expect(new Set(installed.map((i) => i.workspaceId)).size).toBe(2);

    await page.goto(`${s.url}/admin/tenants/${tenant.tenantId}`);
    const rows = page.locator("table.workspaces tbody tr");
    await vi.waitFor(async () => expect(await rows.count()).toBe(2));
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringContaining("Acme Sales"),
      expect.stringContaining("Acme Support"),
    ]);
    await page.screenshot({ path: `${output}slack-installed.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    // Three messages in each workspace, all at the one URL, all at once.
    const deliveries = installed.flatMap(({ bot }) =>
      Array.from({ length: 3 }, (_, i) => ({ bot, delivery: appMention(bot, `question ${i} in ${bot.teamName}`) })),
    );
    const answers = await Promise.all(deliveries.map(({ delivery }) => atTheAppUrl(delivery)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    await vi.waitFor(() => expect(s.slack.posts()).toHaveLength(6), { timeout: 30_000, interval: 100 });
    await settle(1_000);
    for (const { bot, delivery } of deliveries) {
      const replies = s.slack.postsInThread(delivery.event.channel, delivery.event.ts);
      // One reply, in that workspace's channel, posted with that workspace's own bot token.
      expect(replies.map((reply) => [reply.bot_id, reply.team])).toEqual([[bot.botId, bot.teamId]]);
    }
    expect(s.slack.posts()).toHaveLength(6);

    // Slack says the first was uninstalled: the console shows it disabled, with the reason.
    expect((await atTheAppUrl(appUninstalled(installed[0]?.bot as FakeSlackBot))).status).toBe(200);
    await page.reload();
    const first = page.locator(`tr[data-workspace="${installed[0]?.workspaceId}"]`);
    await first.getByText(/^Disabled: app_uninstalled/).waitFor();
    await expect(
      page.locator(`tr[data-workspace="${installed[1]?.workspaceId}"]`).textContent(),
    ).resolves.not.toContain("Disabled");
    await page.screenshot({ path: `${output}slack-uninstalled.png`, fullPage: true });
    expect(browser.problems).toEqual([]);
  });
});
