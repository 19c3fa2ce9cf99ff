import { appMention, connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { axeViolations } from "./support/axe.ts";
import type { Browser } from "./support/browser.ts";
import { consoleLanguages, openConsolePage, screenshots } from "./support/console-languages.ts";
import { startConsoleService } from "./support/console-service.ts";
import type { InProcessService } from "./support/in-process-service.ts";
import { latinLeft, pageWords } from "./support/untranslated.ts";

const allowedLatin = ["resident", "Slack", "LLM", "UTC", "API"];
let s: InProcessService;
beforeAll(async () => {
  s = await startConsoleService();
});
afterAll(() => s?.close());

describe.each(consoleLanguages)("budgets in the console, in $locale", (language) => {
  const { code, locale, t } = language;
  let browser: Browser;
  let page: Page;
  let ws: SlackWorkspace;
  let tenant: string;
  const typed: string[] = [];
  const numberFormat = new Intl.NumberFormat(locale);

  beforeAll(async () => {
    ({ browser, page } = await openConsolePage(s.url, language));
    ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    tenant = (await s.operator.expect<{ name: string }>(200, "GET", `/tenants/${ws.tenantId}`)).name;
    typed.push(tenant, "Support team");
  });
  afterAll(() => browser?.close());

  /** A screenshot, no axe violation, the document in its language, and on a Japanese page no English left. */
  async function snapshot(name: string): Promise<void> {
    await page.screenshot({ path: `${screenshots}${code}/${name}.png`, fullPage: true });
    expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(code);
    if (code === "ja") {
      const { texts } = await pageWords(page);
      expect({ page: name, english: latinLeft(texts, [...allowedLatin, ...typed]) }).toEqual({
        page: name,
        english: [],
      });
    }
  }

  async function signIn(token: string): Promise<void> {
    await page.goto(`${s.url}/admin/`);
    await page.getByLabel(t.signIn.tokenLabel).fill(token);
    await page.getByRole("button", { name: t.signIn.title }).click();
  }

  it("the operator sets the tenant's token budget on the tenant's budget page", async () => {
    await signIn(s.operator.token);
    await page.getByRole("heading", { name: t.tenants.title, level: 1 }).waitFor();
    await page.goto(`${s.url}/admin/tenants/${ws.tenantId}`);
    await page.getByRole("link", { name: t.workspaces.budgetLink }).click();
    await page.getByRole("heading", { name: t.budget.title(tenant), level: 1 }).waitFor();
    const form = page.locator("form").filter({ has: page.getByRole("heading", { name: tenant, exact: true }) });
    await form.getByLabel(t.budget.tokensPerDay).fill("20");
    await form.getByRole("button", { name: t.budget.saveFor(tenant) }).click();
    await page.getByRole("status").getByText(t.budget.saved).waitFor();
    await snapshot("budget-01-operator");
    const view = await s.operator.expect<{ tenant: { budget: unknown } }>(
      200,
      "GET",
      `/tenants/${ws.tenantId}/budgets`,
    );
    expect(view.tenant.budget).toEqual({ tokensPerDay: 20 });
    await page.getByRole("button", { name: t.shell.signOut }).click();
  });

  it("the tenant admin sees today's tokens against the budget, the week, and the over-budget reply", async () => {
    const first = appMention(ws.bot, `first question (${code})`);
    await ws.send(first);
    await vi.waitFor(() => expect(s.slack.postsInThread(first.event.channel, first.event.ts)).toHaveLength(1), {
      timeout: 20_000,
    });
    const second = appMention(ws.bot, `second question (${code})`);
    await ws.send(second);
    await vi.waitFor(() => expect(s.slack.postsInThread(second.event.channel, second.event.ts)).toHaveLength(1), {
      timeout: 20_000,
    });
    expect(s.slack.postsInThread(second.event.channel, second.event.ts)[0]?.text).toContain("usage limit");
    const { tenant: usage } = await s.operator.expect<{ tenant: { usage: { tokens: number }[] } }>(
      200,
      "GET",
      `/tenants/${ws.tenantId}/budgets`,
    );
    const spent = usage.usage.at(-1)?.tokens ?? 0;
    expect(spent).toBeGreaterThanOrEqual(20);

    await signIn(ws.tenantToken);
    await page
      .getByRole("navigation", { name: t.shell.mainNavigation })
      .getByRole("link", { name: t.shell.budget })
      .click();
    await page.getByRole("heading", { name: t.budget.title(tenant), level: 1 }).waitFor();
    const card = page.locator('[data-scope="tenant"]');
    await card
      .locator('[data-budget="today"]')
      .getByText(t.budget.usedOf(numberFormat.format(spent), numberFormat.format(20)))
      .waitFor();
    await card.locator('[data-budget="overBudget"]').getByText("1", { exact: true }).waitFor({ timeout: 10_000 });
    // Today's meter is full: the day's use is past the budget.
    await expect(card.locator('[data-budget="today"] meter').getAttribute("value")).resolves.toBe("20");
    expect(await card.locator("tbody tr").count()).toBe(7);
    await page.getByText(t.budget.operatorOnly).waitFor();
    await snapshot("budget-02-tenant-admin");
  }, 60_000);
});
