import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { en } from "@resident/admin/i18n/en";
import { ja } from "@resident/admin/i18n/ja";
import type { PlatformGuide } from "@resident/admin-api";
import { chatworkPlatform } from "@resident/chatwork";
import { slackPlatform } from "@resident/slack";
import { teamsPlatform } from "@resident/teams";
import { deliver } from "@resident/testkit";
import { defaultTools, FakeMcp } from "@resident/testkit/mcp";
import {
  appMention,
  connectSlackWorkspace,
  type FakeSlackBot,
  type SlackWorkspace,
  signSlackRequest,
} from "@resident/testkit/slack";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { axeViolations } from "./support/axe.ts";
import { type Browser, openBrowser } from "./support/browser.ts";
import { startConsoleService } from "./support/console-service.ts";
import type { InProcessService } from "./support/in-process-service.ts";
import { latinLeft, pageWords } from "./support/untranslated.ts";

const output = fileURLToPath(new URL("../../../test-output/console/", import.meta.url));

/**
 * What a Japanese page may still say in Latin letters. Product names; the terms Japanese technical writing keeps
 * as they are (API, URL, ID, Webhook …); the identifiers the platforms' setup steps name (scopes, events, an API
 * method, manifest fields, app types) — the admin types them into the platform exactly so. Nothing else.
 */
const productNames = ["resident", "Slack", "Microsoft Teams", "Microsoft", "Teams", "Chatwork", "Azure Bot", "Entra"];
const termsKeptInLatin = [
  "API",
  "URL",
  "ID",
  "HTTP",
  "OAuth",
  "Webhook",
  "LLM",
  "DM",
  "Redis",
  "PostgreSQL",
  "Ctrl+C",
  "MCP",
];
const platformIdentifiers = [
  "api.slack.com/apps",
  "app_mentions:read",
  "chat:write",
  "im:history",
  "channels:history",
  "groups:history",
  "mpim:history",
  "app_mention",
  "message.im",
  "message",
  "auth.test",
  "xoxb-",
  "xapp-",
  "xoxe-",
  "SLACK_CLIENT_ID",
  "SLACK_CLIENT_SECRET",
  "connections:write",
  "bots[].botId",
  "personal",
  "groupChat",
  "team",
  "MultiTenant",
  "SingleTenant",
];

const languages = [
  {
    code: "ja",
    locale: "ja-JP",
    t: ja,
    slackClosedConsequence: "再送がすべて長い停止中に収まった",
    chatworkClosedConsequence: "Chatwork は Webhook を再送しない",
    teamsTenantHelp: "SingleTenant のアプリでは必須",
    slackEventsStep: "「イベントサブスクリプション」を有効にし",
    oneDay: "1 日",
  },
  {
    code: "en",
    locale: "en-US",
    t: en,
    slackClosedConsequence: "Slack sends each one again, three times",
    chatworkClosedConsequence: "Chatwork never resends a webhook",
    teamsTenantHelp: "required for a SingleTenant app",
    slackEventsStep: "Event Subscriptions: turn them on",
    oneDay: "1 day",
  },
] as const;

let s: InProcessService;
const mcpKey = `shop-key-${randomBytes(12).toString("hex")}`;
const mcp = new FakeMcp({ auth: { header: "X-Shop-Key", value: mcpKey } });

beforeAll(async () => {
  [s] = await Promise.all([startConsoleService(), mcp.start()]);
});
afterAll(() => Promise.all([s?.close(), mcp.close()]));

describe.each(languages)("the admin console in a browser preferring $locale", (language) => {
  const { code, t } = language;
  const screenshots = `${output}${code}/`;
  let browser: Browser;
  let page: Page;
  /** Each page's HTML as the browser showed it, for the check that no credential was ever in one. */
  const pagesSeen: string[] = [];
  /** What the admin typed and the page shows back: not the console's words, so not to be translated. */
  const typed: string[] = [];

  beforeAll(async () => {
    await mkdir(screenshots, { recursive: true });
    browser = await openBrowser(s.url, { locale: language.locale });
    page = await browser.context.newPage();
  });
  afterAll(() => browser?.close());

  /**
   * Every page is checked as it is shown: a full-page screenshot, axe-core with no violation, the document in the
   * language asked for, and on a Japanese page no English left but the allowed words and what the admin typed.
   */
  async function snapshot(name: string, platformWords: string[] = []): Promise<void> {
    await page.screenshot({ path: `${screenshots}${name}.png`, fullPage: true });
    pagesSeen.push(await page.content());
    expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(code);
    const words = await pageWords(page);
    if (code === "ja") {
      const allowed = [...productNames, ...termsKeptInLatin, ...platformIdentifiers, ...typed];
      expect({ page: name, english: latinLeft(words.texts, allowed) }).toEqual({ page: name, english: [] });
      // Marked as English: the switch's own name for English, and what a platform said in its own words.
      const marked = ["English", ...platformWords].map((text) => ({ lang: "en", text }));
      expect({ page: name, marked: words.marked }).toEqual({ page: name, marked });
    } else {
      // The same check finds the English of an English page: it can fail.
      expect(latinLeft(words.texts, [...productNames, ...typed]).length).toBeGreaterThan(5);
      // And nothing Japanese is left on an English page but the switch's own name for Japanese.
      const japanese = /[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]/;
      expect({ page: name, japanese: words.texts.filter((text) => japanese.test(text)) }).toEqual({
        page: name,
        japanese: [],
      });
      expect({ page: name, marked: words.marked }).toEqual({ page: name, marked: [{ lang: "ja", text: "日本語" }] });
    }
  }

  /** Presses Tab until `target` has the focus, as a keyboard-only admin would; fails if it never gets there. */
  async function tabTo(target: Locator): Promise<void> {
    await target.waitFor();
    for (let presses = 0; presses < 60; presses += 1) {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached ${target}`);
  }

  const stat = (name: string) => page.locator(`[data-stat="${name}"]`);
  /** A credential's label as the platform's guide gives it in this language. */
  const label = (guide: PlatformGuide, name: string) =>
    guide.credentialFields.find((field) => field.name === name)?.label[code] as string;
  const nav = () => page.getByRole("navigation", { name: t.shell.mainNavigation });
  const tenantName = `Acme Support ${code}`;
  const workspaceName = `Support ${code}`;
  const prompt = `You answer for Acme support (${code}).`;
  const changedPrompt = `You answer for Acme support (${code}), briefly.`;
  const deployBot = `Deploy bot ${code}`;
  typed.push(tenantName, workspaceName, prompt, changedPrompt, deployBot);
  let bot: FakeSlackBot;
  const signingSecret = randomBytes(16).toString("hex");
  let tenantToken: string;
  let webhookUrl: string;
  let tenantId: string;
  let other: SlackWorkspace;

  it("opens in the browser's language; the operator signs in (not with a wrong token), creates a tenant and issues its token once", async () => {
    await page.goto(`${s.url}/admin/`);
    expect(await page.evaluate(() => navigator.languages[0])).toBe(language.locale);
    await page.getByRole("heading", { name: t.signIn.title }).waitFor();
    await snapshot("01-sign-in");
    await page.getByLabel(t.signIn.tokenLabel).fill("rsd_not_a_real_token");
    await page.getByRole("button", { name: t.signIn.title }).click();
    await page.getByRole("alert").getByText(t.signIn.invalidToken).waitFor();
    await snapshot("02-sign-in-refused");

    await page.getByLabel(t.signIn.tokenLabel).fill(s.operator.token);
    await page.getByRole("button", { name: t.signIn.title }).click();
    await page.getByRole("heading", { name: t.tenants.title, level: 1 }).waitFor();
    await page.getByLabel(t.tenants.nameLabel).fill(tenantName);
    await page.getByRole("button", { name: t.tenants.createButton }).click();
    const row = page.getByRole("row", { name: new RegExp(tenantName) });
    await row.waitFor();
    await snapshot("03-tenants");

    await row.getByRole("button", { name: t.tenants.issueTokenFor(tenantName) }).click();
    const issued = page.getByLabel(t.tenants.tokenLabel, { exact: true });
    await issued.waitFor();
    tenantToken = await issued.inputValue();
    expect(tenantToken).toMatch(/^rsd_/);
    await snapshot("04-token-issued");
    tenantId = (await row.locator("code").textContent()) as string;
    // The creation time, as Intl writes it in this language (ja: 2026/12/01 9:26:33).
    expect(await row.locator("td").nth(1).textContent()).toMatch(
      code === "ja" ? /^\d{4}\/\d{2}\/\d{2} / : /^[A-Z][a-z]{2} /,
    );

    // The operator's token lives in this tab's sessionStorage and nowhere else a page or a URL could carry it.
    expect(page.url()).not.toContain(s.operator.token);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([s.operator.token]);
    expect(await page.evaluate(() => Object.values(localStorage))).not.toContain(s.operator.token);
    expect(await browser.context.cookies()).toEqual([]);
    await page.getByRole("button", { name: t.shell.signOut }).click();
    await page.getByRole("heading", { name: t.signIn.title }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("lets the tenant admin sign in, connect a Slack workspace and test the connection by keyboard alone", async () => {
    await tabTo(page.getByLabel(t.signIn.tokenLabel));
    await page.keyboard.type(tenantToken);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: tenantName, level: 1 }).waitFor();
    await page.getByText(t.workspaces.none).waitFor();
    await snapshot("05-workspaces-empty");

    bot = s.slack.addBot();
    await tabTo(page.getByRole("link", { name: t.workspaces.connect("Slack") }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: t.form.connectTitle("Slack"), level: 1 }).waitFor();
    // Each fail mode comes with what it costs on Slack; closed is Slack's default.
    const closedByDefault = t.form.defaultFor(t.form.failMode.closed, "Slack");
    await expect(page.getByLabel(closedByDefault).isChecked()).resolves.toBe(true);
    await page.getByText(language.slackClosedConsequence).waitFor();
    await snapshot("06-connect-slack");
    for (const [field, value] of [
      [t.form.name, workspaceName],
      [t.form.optional(label(slackPlatform.guide, "signingSecret")), signingSecret],
      [label(slackPlatform.guide, "botToken"), bot.token],
      [t.form.systemPrompt, prompt],
    ] as const) {
      await tabTo(page.getByLabel(field, { exact: true }));
      await page.keyboard.type(value);
    }
    await tabTo(page.getByRole("button", { name: t.form.connectTitle("Slack") }));
    await page.keyboard.press("Space");
    await page.getByRole("heading", { name: workspaceName, level: 1 }).waitFor();

    await tabTo(page.getByRole("button", { name: t.workspace.testConnection }));
    await page.keyboard.press("Space");
    const result = page.getByRole("status").filter({ hasText: t.workspace.connected });
    await result.waitFor();
    await result.getByText(bot.userId).waitFor();
  });

  it("says in this language that Slack refused a wrong bot token, with Slack's own words marked as theirs", async () => {
    await nav().getByRole("link", { name: t.shell.workspaces }).click();
    await page.getByRole("link", { name: t.workspaces.connect("Slack") }).click();
    await page.getByLabel(t.form.name, { exact: true }).fill("refused");
    await page
      .getByLabel(t.form.optional(label(slackPlatform.guide, "signingSecret")), { exact: true })
      .fill(signingSecret);
    await page.getByLabel(label(slackPlatform.guide, "botToken"), { exact: true }).fill("xoxb-not-a-real-token");
    await page.getByRole("button", { name: t.form.connectTitle("Slack") }).click();
    const alert = page.getByRole("alert");
    await alert.getByText(t.errors.credentialsRefused("Slack")).waitFor();
    const slackSaid = (await alert.locator('[lang="en"]').textContent()) as string;
    expect(slackSaid).toContain("invalid_auth");
    await snapshot("07-connect-refused", [slackSaid]);
    await page.getByRole("link", { name: t.form.back }).click();
  });

  it("draws every platform's form from its guide, in this language: Teams' app types, Chatwork's token list", async () => {
    await page.getByRole("link", { name: t.workspaces.connect("Microsoft Teams") }).click();
    await page.getByRole("heading", { name: t.form.connectTitle("Microsoft Teams"), level: 1 }).waitFor();
    await page.getByLabel(t.form.optional(label(teamsPlatform.guide, "appType"))).selectOption("SingleTenant");
    await page.getByText(language.teamsTenantHelp).waitFor();
    await snapshot("08-connect-teams");

    await page.getByRole("link", { name: t.form.back }).click();
    await page.getByRole("link", { name: t.workspaces.connect("Chatwork") }).click();
    await page.getByRole("heading", { name: t.form.connectTitle("Chatwork"), level: 1 }).waitFor();
    const openByDefault = t.form.defaultFor(t.form.failMode.open, "Chatwork");
    await expect(page.getByLabel(openByDefault).isChecked()).resolves.toBe(true);
    await page.getByText(language.chatworkClosedConsequence).waitFor();
    await page.getByRole("button", { name: t.form.addAnother }).click();
    const secondToken = page.getByLabel(t.form.listItem(label(chatworkPlatform.guide, "webhookTokens"), 2));
    await expect(secondToken.evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    await snapshot("09-connect-chatwork");
    await page.getByRole("link", { name: t.form.back }).click();
    // Exact: the tenant's own heading ("Acme Support …") holds the workspace's name too.
    await page.getByRole("link", { name: workspaceName, exact: true }).click();
    await page.getByRole("heading", { name: workspaceName, level: 1, exact: true }).waitFor();
    await page.getByRole("link", { name: t.workspace.edit }).waitFor();
  });

  it("shows the webhook URL to paste with a copy button, and the setup steps in this language", async () => {
    webhookUrl = await page.getByLabel(t.workspace.webhookUrl).inputValue();
    expect(webhookUrl).toMatch(new RegExp(`^${s.url}/slack/events/ws_`));
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
    // The webhook URL's copy button comes first; the Interactivity URL's follows it.
    await page.getByRole("button", { name: t.copy.copy, exact: true }).first().click();
    await page.getByText(t.copy.copied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookUrl);
    expect(await page.getByLabel(t.workspace.interactionUrl).inputValue()).toBe(
      webhookUrl.replace("/slack/events/", "/slack/interactivity/"),
    );
    await page.getByText(language.slackEventsStep).waitFor();
    await page.getByText(language.oneDay).first().waitFor();
    await snapshot("10-workspace");
  });

  it("shows one event and one reply once a signed message arrives, then the duplicate delivery it suppressed", async () => {
    const mention = appMention(bot, "where is my order?");
    const signed = signSlackRequest({ signingSecret, body: mention });
    expect((await deliver(webhookUrl, signed)).status).toBe(200);
    await vi.waitFor(
      async () => {
        expect(await stat("events").textContent()).toBe("1");
        expect(await stat("replies").textContent()).toBe("1");
      },
      { timeout: 20_000, interval: 50 },
    );
    await page.getByText(t.activity.lastReply).waitFor();
    await snapshot("11-answered-once");

    expect((await deliver(webhookUrl, signSlackRequest({ signingSecret, body: mention }))).status).toBe(200);
    await vi.waitFor(
      async () => {
        expect(await stat("duplicateEvents").textContent()).toBe("1");
        expect(await stat("duplicatesPrevented").textContent()).toBe("1");
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(await stat("events").textContent()).toBe("2");
    expect(await stat("replies").textContent()).toBe("1");
    expect(s.slack.postsInThread(mention.event.channel, mention.event.ts)).toHaveLength(1);
    await page.getByText(t.chart.legend(t.chart.duplicates, "1")).waitFor();
    await snapshot("12-duplicate-suppressed");

    await page.getByLabel(t.workspace.lastDay).check();
    await expect.poll(() => page.locator('[id^="chart-summary"]').textContent()).toContain(t.chart.lastDay);
    await snapshot("13-chart-last-day");
  });

  it("attaches an MCP server to the workspace, sees its tools, and detaches it; the auth header never shows", async () => {
    const serverName = `shop-${code}`;
    const tools = new Map(defaultTools.map((tool) => [tool.name, tool.description]));
    typed.push(serverName, "X-Shop-Key");
    const card = page.getByRole("region", { name: t.tools.title });
    await card.getByText(t.tools.none).waitFor();
    await card.getByLabel(t.tools.nameLabel, { exact: true }).fill(serverName);
    await card.getByLabel(t.tools.urlLabel).fill("http://127.0.0.1:9/mcp");
    await card.getByRole("button", { name: t.tools.attach }).click();
    await card.getByRole("alert").getByText(t.tools.unreachable).waitFor();
    await snapshot("13a-tool-server-unreachable", [
      (await card.getByRole("alert").locator('[lang="en"]').textContent()) as string,
    ]);

    await card.getByLabel(t.tools.urlLabel).fill(mcp.url);
    await card.getByLabel(t.tools.headerLabel).fill("X-Shop-Key");
    await card.getByLabel(t.tools.valueLabel).fill(mcpKey);
    await card.getByRole("button", { name: t.tools.attach }).click();
    await card.getByText(t.tools.attached(serverName, tools.size)).waitFor();
    await card.getByText(t.tools.headerSet("X-Shop-Key")).waitFor();
    await card.getByRole("button", { name: t.tools.showTools(serverName) }).click();
    for (const name of tools.keys()) await card.locator("code", { hasText: name }).waitFor();
    await snapshot("13b-tool-server-tools", [...tools.values()]);
    expect(await page.content()).not.toContain(mcpKey);
    expect(mcp.listCalls).toBeGreaterThanOrEqual(2);

    await card.getByRole("button", { name: t.tools.detach(serverName) }).click();
    await card.getByText(t.tools.none).waitFor();
  });

  it("shows a Socket Mode workspace's open connections and the instance holding each, in this language", async () => {
    const socketBot = s.slack.addBot();
    const appToken = s.slack.socketMode.addApp(socketBot.appId);
    const socketName = `Socket Mode ${code}`;
    typed.push(socketName, "test-instance");
    const created = await s.operator.as(tenantToken).createWorkspace(tenantId, {
      platform: "slack",
      name: socketName,
      credentials: { botToken: socketBot.token, appToken },
    });
    await nav().getByRole("link", { name: t.shell.workspaces }).click();
    await page.getByRole("link", { name: socketName, exact: true }).click();
    await page.getByRole("heading", { name: socketName, level: 1, exact: true }).waitFor();
    const table = page.getByRole("table", { name: t.connections.caption });
    await vi.waitFor(
      async () => expect(await table.getByRole("row").filter({ hasText: t.connections.open }).count()).toBe(2),
      { timeout: 15_000 },
    );
    await page.getByText(t.connections.summary(2, 1)).waitFor();
    await table.getByText("test-instance").first().waitFor();
    await snapshot("13c-socket-mode-connections");
    await s.operator.as(tenantToken).deleteWorkspace(tenantId, created.id);
    await nav().getByRole("link", { name: t.shell.workspaces }).click();
    // Exact: the tenant's own heading ("Acme Support …") holds the workspace's name too.
    await page.getByRole("link", { name: workspaceName, exact: true }).click();
    await page.getByRole("heading", { name: workspaceName, level: 1, exact: true }).waitFor();
    await page.getByRole("link", { name: t.workspace.edit }).waitFor();
  });

  it("edits the workspace without ever showing a stored credential, and audits who changed what", async () => {
    await page.getByRole("link", { name: t.workspace.edit }).click();
    await page.getByRole("heading", { name: t.form.editTitle(workspaceName) }).waitFor();
    const setList = [label(slackPlatform.guide, "signingSecret"), label(slackPlatform.guide, "botToken")].join(
      t.form.listSeparator,
    );
    await page.getByText(t.form.storedCredentials(setList, "Slack")).waitFor();
    const secretField = page.getByLabel(t.form.optional(label(slackPlatform.guide, "signingSecret")), {
      exact: true,
    });
    expect(await secretField.inputValue()).toBe("");
    expect(await secretField.isDisabled()).toBe(true);
    await snapshot("14-edit-workspace");
    await page.getByLabel(t.form.systemPrompt).fill(changedPrompt);
    await page.getByRole("button", { name: t.form.save }).click();
    await page.getByText(changedPrompt).waitFor();

    await nav().getByRole("link", { name: t.shell.auditLog }).click();
    await page.getByRole("heading", { name: t.audit.title(tenantName) }).waitFor();
    const changed = page.getByRole("row", { name: new RegExp(t.audit.actions["workspace.update"]) });
    // Fields by the console's name for them, not the API's path.
    await changed.getByRole("cell", { name: t.workspace.systemPrompt, exact: true }).waitFor();
    const connected = `${t.audit.actions["workspace.create"]}${t.audit.onPlatform("Slack")}`;
    // The oldest of them: this workspace's (the Socket Mode one was connected, and deleted, after it).
    await page
      .getByRole("row", { name: new RegExp(connected.replace(/[()]/g, "\\$&")) })
      .last()
      .waitFor();
    await snapshot("15-audit-log");

    await nav().getByRole("link", { name: t.shell.workspaces }).click();
    const row = page.getByRole("row", { name: new RegExp(workspaceName) });
    // The last message's moment, relative to now: "just now" holds only ten seconds, which a loaded machine outlasts.
    const moment = row.locator("time").first();
    await moment.waitFor();
    expect(Date.now() - Date.parse((await moment.getAttribute("datetime")) ?? "")).toBeLessThan(15 * 60_000);
    await snapshot("16-workspaces");
  });

  it("shows a tenant admin nothing of another tenant, in the page or through the API", async () => {
    other = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const theirs = await s.operator.expect<{ name: string }>(200, "GET", `/tenants/${other.tenantId}`);
    const paths = [
      `/admin/tenants/${other.tenantId}`,
      `/admin/tenants/${other.tenantId}/audit`,
      `/admin/tenants/${other.tenantId}/workspaces/${other.workspaceId}`,
      `/admin/tenants/${tenantId}/workspaces/${other.workspaceId}`,
      `/admin/tenants/${other.tenantId}/workspaces/${other.workspaceId}/edit`,
    ];
    for (const path of paths) {
      await page.goto(`${s.url}${path}`);
      await page.getByRole("heading", { name: t.errors.notFound }).waitFor();
      const html = await page.content();
      for (const secret of [theirs.name, other.tenantId, other.workspaceId, other.bot.userId]) {
        expect(html).not.toContain(secret);
      }
      pagesSeen.push(html);
    }
    await snapshot("17-not-yours");

    const apiPaths = [
      `/tenants/${other.tenantId}`,
      `/tenants/${other.tenantId}/workspaces`,
      `/tenants/${other.tenantId}/stats`,
      `/tenants/${other.tenantId}/audit`,
      `/tenants/${other.tenantId}/workspaces/${other.workspaceId}`,
      `/tenants/${other.tenantId}/workspaces/${other.workspaceId}/series?range=hour`,
      `/tenants/${tenantId}/workspaces/${other.workspaceId}`,
      `/tenants/${tenantId}/workspaces/${other.workspaceId}/series?range=day`,
    ];
    const statuses = await page.evaluate(
      (paths) =>
        Promise.all(
          paths.map(async (path) => {
            const token = Object.values(sessionStorage)[0];
            const answer = await fetch(`/admin/api${path}`, { headers: { authorization: `Bearer ${token}` } });
            return answer.status;
          }),
        ),
      apiPaths,
    );
    expect(statuses).toEqual(apiPaths.map(() => 404));
    const tested = await page.evaluate(
      async ([tenant, workspace]) => {
        const token = Object.values(sessionStorage)[0];
        const path = `/admin/api/tenants/${tenant}/workspaces/${workspace}/test-connection`;
        return (await fetch(path, { method: "POST", headers: { authorization: `Bearer ${token}` } })).status;
      },
      [other.tenantId, other.workspaceId],
    );
    expect(tested).toBe(404);
  });

  it("deletes a workspace only once asked to confirm, and its webhook stops at once", async () => {
    await page.goto(`${s.url}/admin/`);
    await page.getByRole("link", { name: workspaceName }).click();
    await page.getByRole("button", { name: t.workspace.delete }).click();
    await page.getByRole("button", { name: t.workspace.cancel }).click();
    await page.getByRole("button", { name: t.workspace.delete }).click();
    await page.getByRole("alert").getByText(t.workspace.confirmDelete(workspaceName)).waitFor();
    await snapshot("18-delete-confirm");
    await page.getByRole("button", { name: t.workspace.deleteNamed(workspaceName) }).click();
    await page.getByText(t.workspaces.none).waitFor();
    const late = signSlackRequest({ signingSecret, body: appMention(bot, "anyone there?") });
    expect((await deliver(webhookUrl, late)).status).toBe(404);
  });

  it("lists, names and revokes tokens on the Tokens page, and never shows a token again after its first display", async () => {
    const escaped = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    await nav().getByRole("link", { name: t.shell.tokens }).click();
    await page.getByRole("heading", { name: t.tokens.title(tenantName), level: 1 }).waitFor();
    // Issued from the tenants list, the token is named in the operator's language.
    await page.getByRole("row", { name: escaped(`${t.tenants.defaultTokenName} ${t.tokens.thisSession}`) }).waitFor();
    await page.getByText(t.tokens.askOperator).waitFor();
    await snapshot("19-tokens-of-a-tenant-admin");
    await page.getByRole("button", { name: t.shell.signOut }).click();

    await page.getByLabel(t.signIn.tokenLabel).fill(s.operator.token);
    await page.getByRole("button", { name: t.signIn.title }).click();
    await page.getByRole("link", { name: t.tenants.tokensLinkOf(tenantName) }).click();
    await page.getByRole("heading", { name: t.tokens.title(tenantName), level: 1 }).waitFor();
    const responsesBefore = (await browser.received()).length;
    await page.getByLabel(t.tokens.nameLabel).fill(deployBot);
    await page.getByRole("button", { name: t.tokens.issueButton }).click();
    const shown = page.getByLabel(t.tenants.tokenLabel, { exact: true });
    await shown.waitFor();
    const deployToken = await shown.inputValue();
    expect(deployToken).toMatch(/^rsd_/);
    const row = page.getByRole("row", { name: escaped(deployBot) });
    await row.getByText(`${deployToken.slice(0, 12)}…`).waitFor();
    await snapshot("20-tokens-new-token");
    await page.getByRole("button", { name: t.tenants.done }).click();
    expect(await page.content()).not.toContain(deployToken);
    expect((await s.operator.as(deployToken).request("GET", "/me")).status).toBe(200);

    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(deployToken);
    await snapshot("21-tokens");
    await row.getByRole("button", { name: t.tokens.revokeNamed(deployBot) }).click();
    await page.getByRole("alert").getByText(t.tokens.confirmRevoke(deployBot)).waitFor();
    await snapshot("22-token-revoke-confirm");
    await page
      .getByRole("button", { name: t.tokens.revokeNamed(deployBot), exact: true })
      .last()
      .click();
    await page.getByRole("row", { name: escaped(deployBot) }).waitFor({ state: "detached" });
    expect((await s.operator.as(deployToken).request("GET", "/me")).status).toBe(401);
    await snapshot("23-token-revoked");

    const after = (await browser.received()).slice(responsesBefore);
    const showing = after.filter((response) => response.body.includes(deployToken));
    expect(showing.map((response) => `${response.status} ${new URL(response.url).pathname}`)).toEqual([
      `201 /admin/api/tenants/${tenantId}/tokens`,
    ]);
    const audit = await s.operator.expect<{ action: string }[]>(200, "GET", `/tenants/${tenantId}/audit`);
    expect(audit.slice(0, 2).map((entry) => entry.action)).toEqual(["token.revoke", "token.issue"]);
  });

  it("switches language from the header by keyboard, sets lang, and remembers the choice", async () => {
    const [otherCode, otherT] = code === "ja" ? (["en", en] as const) : (["ja", ja] as const);
    await tabTo(page.getByRole("group", { name: t.shell.language }).getByRole("button", { name: otherT.languageName }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: otherT.tokens.title(tenantName), level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(otherCode);
    const chosen = page.getByRole("button", { name: otherT.languageName });
    await expect(chosen.getAttribute("aria-pressed")).resolves.toBe("true");
    // The focus stays on the switch, so a keyboard user is where they were.
    await expect(chosen.evaluate((button) => button === document.activeElement)).resolves.toBe(true);

    await page.reload();
    await page.getByRole("heading", { name: otherT.tokens.title(tenantName), level: 1 }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("resident.language"))).toBe(otherCode);
    await page.getByRole("button", { name: t.languageName }).press("Enter");
    await page.getByRole("heading", { name: t.tokens.title(tenantName), level: 1 }).waitFor();
    await snapshot("24-tokens-after-switching-back");
  });

  it("never let a credential reach the browser, showed the token once, fetched nothing from outside, broke no CSP", async () => {
    const credentials = [signingSecret, bot.token, other.signingSecret, other.bot.token, ...s.secrets];
    const received = await browser.received();
    expect(received.length).toBeGreaterThan(20);
    expect(received.some((response) => /\/admin\/assets\/.+\.js$/.test(response.url))).toBe(true);
    for (const { url, body } of received) {
      for (const credential of credentials)
        expect({ url, leaked: body.includes(credential) }).toEqual({ url, leaked: false });
    }
    for (const html of pagesSeen) for (const credential of credentials) expect(html).not.toContain(credential);
    const showingToken = received.filter((response) => response.body.includes(tenantToken));
    expect(showingToken.map((response) => new URL(response.url).pathname)).toEqual([
      `/admin/api/tenants/${tenantId}/tokens`,
    ]);
    expect(browser.outside).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});
