import { utcDay } from "@resident/core";
import { appMention, connectSlackWorkspace, type FakeSlackPost, feedbackClick } from "@resident/testkit/slack";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { axeViolations } from "./support/axe.ts";
import type { Browser } from "./support/browser.ts";
import { consoleLanguages, openConsolePage, screenshots } from "./support/console-languages.ts";
import { startConsoleService } from "./support/console-service.ts";
import type { InProcessService } from "./support/in-process-service.ts";

/*
 * The console's feedback section in a real browser: one click on an answer's 👍, delivered three times at once to the
 * Interactivity URL, shows as one helpful vote for today; a second person's 👎 appears with the next refresh.
 */

let s: InProcessService;
beforeAll(async () => {
  s = await startConsoleService();
});
afterAll(() => s?.close());

describe.each(consoleLanguages)("feedback in the console, in $locale", (language) => {
  const { code, locale, t } = language;
  let browser: Browser;
  let page: Page;
  const count = (n: number) => new Intl.NumberFormat(locale).format(n);

  beforeAll(async () => {
    ({ browser, page } = await openConsolePage(s.url, language));
  });
  afterAll(() => browser?.close());

  it("shows one helpful vote for a click delivered three times, and the next vote on refresh", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack, { streaming: false });
    const mention = appMention(ws.bot, `is this helpful? (${code})`);
    await ws.send(mention);
    const post = await vi.waitFor(
      () => {
        const [answer] = s.slack.postsInThread(mention.event.channel, mention.event.ts);
        expect(answer).toBeDefined();
        return answer as FakeSlackPost;
      },
      { timeout: 20_000, interval: 50 },
    );
    const click = feedbackClick(post, { vote: "positive" });
    const acks = await Promise.all([1, 2, 3].map(() => ws.interact(click)));
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200]);

    await page.goto(`${s.url}/admin/`);
    await page.getByLabel(t.signIn.tokenLabel).fill(ws.tenantToken);
    await page.getByRole("button", { name: t.signIn.title }).click();
    await page.getByRole("link", { name: "Support team" }).first().click();
    const section = page.getByRole("region", { name: t.feedback.title });
    await section.waitFor();
    const today = section.locator(`tr[data-day="${utcDay(Date.now())}"]`);
    await expect(today.locator('[data-vote="positive"]').textContent()).resolves.toBe(count(1));
    await expect(today.locator('[data-vote="negative"]').textContent()).resolves.toBe(count(0));
    await section.getByText(t.feedback.summary(count(1), count(0))).waitFor();
    expect(await section.locator("tbody tr").count()).toBe(7);
    await page.screenshot({ path: `${screenshots}${code}/feedback-01-one-click.png`, fullPage: true });
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(code);

    // Another person's 👎, seen without a reload: the section is re-read every two seconds.
    expect((await ws.interact(feedbackClick(post, { vote: "negative" }))).status).toBe(200);
    await section.getByText(t.feedback.summary(count(1), count(1))).waitFor({ timeout: 10_000 });
    await expect(today.locator('[data-vote="negative"]').textContent()).resolves.toBe(count(1));
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
