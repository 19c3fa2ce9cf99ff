import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { deliver, eventually } from "@resident/testkit";
import { freePort } from "@resident/testkit/processes";
import {
  appMention,
  connectSlackWorkspace,
  type FakeSlackBot,
  type SlackWorkspace,
  signSlackRequest,
} from "@resident/testkit/slack";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, openBrowser } from "./support/browser.ts";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

const screenshots = fileURLToPath(new URL("../../../test-output/console/", import.meta.url));

let s: InProcessService;
let browser: Browser;
let page: Page;
/** Each page's HTML as the browser showed it, for the check that no credential was ever in one. */
const pagesSeen: string[] = [];

/** Saves a full-page screenshot and remembers the page's HTML. */
async function snapshot(name: string): Promise<void> {
  await page.screenshot({ path: `${screenshots}${name}.png`, fullPage: true });
  pagesSeen.push(await page.content());
}

const stat = (name: string) => page.locator(`[data-stat="${name}"]`);
const nav = () => page.getByRole("navigation", { name: "Main" });

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  s = await startInProcessService({ PORT: String(port), PUBLIC_URL: origin });
  browser = await openBrowser(origin);
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe("the admin console in a browser", () => {
  const tenantName = "Acme Support";
  let bot: FakeSlackBot;
  const signingSecret = randomBytes(16).toString("hex");
  let tenantToken: string;
  let webhookUrl: string;
  let tenantId: string;
  let other: SlackWorkspace;

  it("lets the operator sign in (not with a wrong token), create a tenant and issue its admin token once", async () => {
    await page.goto(`${s.url}/admin/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await snapshot("01-sign-in");
    await page.getByLabel("Admin token").fill("rsd_not_a_real_token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("That token is not valid.").waitFor();

    await page.getByLabel("Admin token").fill(s.operator.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Tenants", level: 1 }).waitFor();
    await page.getByLabel("Name").fill(tenantName);
    await page.getByRole("button", { name: "Create tenant" }).click();
    const row = page.getByRole("row", { name: new RegExp(tenantName) });
    await row.waitFor();
    await snapshot("02-tenants");

    await row.getByRole("button", { name: `Issue admin token for ${tenantName}` }).click();
    const issued = page.getByLabel("Tenant admin token");
    await issued.waitFor();
    tenantToken = await issued.inputValue();
    expect(tenantToken).toMatch(/^rsd_/);
    await snapshot("03-token-issued");
    tenantId = (await row.locator("code").textContent()) as string;

    // The operator's token lives in this tab's sessionStorage and nowhere else a page or a URL could carry it.
    expect(page.url()).not.toContain(s.operator.token);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([s.operator.token]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await browser.context.cookies()).toEqual([]);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("lets the tenant admin sign in by keyboard and connect a Slack workspace pointing at the fake Slack", async () => {
    await page.getByLabel("Admin token").focus();
    await page.keyboard.type(tenantToken);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: tenantName, level: 1 }).waitFor();
    await page.getByText("No workspace is connected yet.").waitFor();
    await snapshot("04-workspaces-empty");

    bot = s.slack.addBot();
    await page.getByRole("link", { name: "Connect Slack" }).click();
    await page.getByRole("heading", { name: "Connect Slack", level: 1 }).waitFor();
    await page.getByLabel("Name").fill("Support");
    await page.getByLabel("Signing secret").fill(signingSecret);
    await page.getByLabel("Bot token").fill(bot.token);
    await page.getByLabel("System prompt (optional)").fill("You answer for Acme support.");
    // Each fail mode comes with what it costs on Slack; closed is Slack's default.
    await expect(page.getByLabel("Fail closed (default for Slack)").isChecked()).resolves.toBe(true);
    await page.getByText("Slack sends each one again, three times").waitFor();
    await snapshot("05-connect-slack");
    await page.getByRole("button", { name: "Connect Slack" }).click();
    await page.getByRole("heading", { name: "Support", level: 1 }).waitFor();
  });

  it("draws every platform's form from its guide: Teams' app types, Chatwork's token list and fail-open default", async () => {
    await nav().getByRole("link", { name: "Workspaces" }).click();
    await page.getByRole("link", { name: "Connect Microsoft Teams" }).click();
    await page.getByRole("heading", { name: "Connect Microsoft Teams", level: 1 }).waitFor();
    await page.getByLabel("App type (optional)").selectOption("SingleTenant");
    await page.getByText("required for a SingleTenant app").waitFor();
    await snapshot("06-connect-teams");

    await page.getByRole("link", { name: "Back" }).click();
    await page.getByRole("link", { name: "Connect Chatwork" }).click();
    await page.getByRole("heading", { name: "Connect Chatwork", level: 1 }).waitFor();
    await expect(page.getByLabel("Fail open (default for Chatwork)").isChecked()).resolves.toBe(true);
    await page.getByText("Chatwork never resends a webhook").waitFor();
    await page.getByRole("button", { name: "Add another" }).click();
    await expect(
      page.getByLabel("Webhook tokens: 2").evaluate((input) => input === document.activeElement),
    ).resolves.toBe(true);
    await snapshot("07-connect-chatwork");
    await page.getByRole("link", { name: "Back" }).click();
    await page.getByRole("link", { name: "Support" }).click();
    await page.getByRole("heading", { name: "Support", level: 1 }).waitFor();
  });

  it("tests the connection with Slack and shows the webhook URL to paste, with a copy button", async () => {
    await page.getByRole("button", { name: "Test connection" }).click();
    const result = page.getByRole("status").filter({ hasText: "Connected." });
    await result.waitFor();
    await result.getByText(bot.userId).waitFor();

    webhookUrl = await page.getByLabel("Webhook URL").inputValue();
    expect(webhookUrl).toMatch(new RegExp(`^${s.url}/slack/events/ws_`));
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookUrl);
    await page.getByText("Event Subscriptions: turn them on").waitFor();
    await snapshot("08-workspace");
  });

  it("shows one event and one reply once a signed message arrives, then the duplicate delivery it suppressed", async () => {
    const mention = appMention(bot, "where is my order?");
    const signed = signSlackRequest({ signingSecret, body: mention });
    expect((await deliver(webhookUrl, signed)).status).toBe(200);
    await eventually(async () => {
      expect(await stat("events").textContent()).toBe("1");
      expect(await stat("replies").textContent()).toBe("1");
    });
    await page.getByText("Last reply sent").waitFor();
    await snapshot("09-answered-once");

    expect((await deliver(webhookUrl, signSlackRequest({ signingSecret, body: mention }))).status).toBe(200);
    await eventually(async () => {
      expect(await stat("duplicateEvents").textContent()).toBe("1");
      expect(await stat("duplicatesPrevented").textContent()).toBe("1");
    });
    expect(await stat("events").textContent()).toBe("2");
    expect(await stat("replies").textContent()).toBe("1");
    expect(s.slack.postsInThread(mention.event.channel, mention.event.ts)).toHaveLength(1);
    await page.getByText("Duplicates suppressed: 1").waitFor();
    await snapshot("10-duplicate-suppressed");

    await page.getByLabel("Last day").check();
    await page.getByText("Over the last day:", { exact: false }).waitFor({ state: "attached" });
    await snapshot("11-chart-last-day");
  });

  it("edits the workspace without ever showing a stored credential, and audits who changed what", async () => {
    await page.getByRole("link", { name: "Edit workspace" }).click();
    await page.getByRole("heading", { name: "Edit Support" }).waitFor();
    await page.getByText("Set: Signing secret, Bot token.").waitFor();
    expect(await page.getByLabel("Signing secret").inputValue()).toBe("");
    expect(await page.getByLabel("Signing secret").isDisabled()).toBe(true);
    await snapshot("12-edit-workspace");
    await page.getByLabel("System prompt (optional)").fill("You answer for Acme support, briefly.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("You answer for Acme support, briefly.").waitFor();

    await nav().getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: `Audit log of ${tenantName}` }).waitFor();
    const changed = page.getByRole("row", { name: /changed a workspace/ });
    await changed.getByText("settings.systemPrompt").waitFor();
    await page.getByRole("row", { name: /connected a workspace \(slack\)/ }).waitFor();
    await snapshot("13-audit-log");

    await nav().getByRole("link", { name: "Workspaces" }).click();
    const row = page.getByRole("row", { name: /Support/ });
    await row.getByText("just now").first().waitFor();
    await snapshot("14-workspaces");
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
      await page.getByRole("heading", { name: "Not found" }).waitFor();
      const html = await page.content();
      for (const secret of [theirs.name, other.tenantId, other.workspaceId, other.bot.userId]) {
        expect(html).not.toContain(secret);
      }
      pagesSeen.push(html);
    }
    await snapshot("15-not-yours");

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
    await page.getByRole("link", { name: "Support" }).click();
    await page.getByRole("button", { name: "Delete workspace" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Delete workspace" }).click();
    await page.getByRole("alert").getByText("Its webhook stops working at once").waitFor();
    await snapshot("16-delete-confirm");
    await page.getByRole("button", { name: "Delete Support" }).click();
    await page.getByText("No workspace is connected yet.").waitFor();
    const late = signSlackRequest({ signingSecret, body: appMention(bot, "anyone there?") });
    expect((await deliver(webhookUrl, late)).status).toBe(404);
  });

  it("lists, names and revokes tokens on the Tokens page, and never shows a token again after its first display", async () => {
    await nav().getByRole("link", { name: "Tokens" }).click();
    await page.getByRole("heading", { name: `Admin tokens of ${tenantName}`, level: 1 }).waitFor();
    await page.getByRole("row", { name: /admin token \(this session\)/ }).waitFor();
    await page.getByText("Ask the operator for another token").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();

    await page.getByLabel("Admin token").fill(s.operator.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: `Tokens of ${tenantName}` }).click();
    await page.getByRole("heading", { name: `Admin tokens of ${tenantName}`, level: 1 }).waitFor();
    const responsesBefore = (await browser.received()).length;
    await page.getByLabel("Token name").fill("Deploy bot");
    await page.getByRole("button", { name: "Issue token" }).click();
    const shown = page.getByLabel("Tenant admin token");
    await shown.waitFor();
    const deployToken = await shown.inputValue();
    expect(deployToken).toMatch(/^rsd_/);
    const row = page.getByRole("row", { name: /Deploy bot/ });
    await row.getByText(`${deployToken.slice(0, 12)}…`).waitFor();
    await snapshot("17-token-issued");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.content()).not.toContain(deployToken);
    expect((await s.operator.as(deployToken).request("GET", "/me")).status).toBe(200);

    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(deployToken);
    await snapshot("18-tokens");
    await row.getByRole("button", { name: "Revoke Deploy bot" }).click();
    await page.getByRole("alert").getByText("signed out at once").waitFor();
    await page.getByRole("button", { name: "Revoke Deploy bot", exact: true }).last().click();
    await page.getByRole("row", { name: /Deploy bot/ }).waitFor({ state: "detached" });
    expect((await s.operator.as(deployToken).request("GET", "/me")).status).toBe(401);
    await snapshot("19-token-revoked");

    const after = (await browser.received()).slice(responsesBefore);
    const showing = after.filter((response) => response.body.includes(deployToken));
    expect(showing.map((response) => `${response.status} ${new URL(response.url).pathname}`)).toEqual([
      `201 /admin/api/tenants/${tenantId}/tokens`,
    ]);
    const audit = await s.operator.expect<{ action: string }[]>(200, "GET", `/tenants/${tenantId}/audit`);
    expect(audit.slice(0, 2).map((entry) => entry.action)).toEqual(["token.revoke", "token.issue"]);
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
