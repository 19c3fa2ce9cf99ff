import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Response } from "playwright-core";

export interface ReceivedResponse {
  url: string;
  status: number;
  body: string;
}

export interface Browser {
  context: BrowserContext;
  /** Every response the browser has received so far, with its body. */
  received(): Promise<ReceivedResponse[]>;
  /** Requests for anything outside `origin`, which were refused: the console must work offline. */
  outside: string[];
  /** Uncaught errors in a page, and whatever the content security policy blocked. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, with a fresh profile, allowed to reach `origin` only (and `alsoAllowed`: a fake
 * platform's pages the console sends the browser to). Every response is recorded, so a test can look through all
 * the browser ever received. `locale` is the browser's language preference (navigator.languages, Accept-Language).
 */
export async function openBrowser(
  origin: string,
  options: { locale?: string; alsoAllowed?: string[] } = {},
): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "resident-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
    locale: options.locale,
  });
  const responses: ReceivedResponse[] = [];
  const outside: string[] = [];
  const problems: string[] = [];
  const pending: Promise<void>[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if ([origin, ...(options.alsoAllowed ?? [])].some((allowed) => url.startsWith(allowed))) return route.continue();
    outside.push(url);
    return route.abort();
  });
  const record = async (response: Response) => {
    const body = await response.text().catch(() => "");
    responses.push({ url: response.url(), status: response.status(), body });
  };
  context.on("response", (response) => {
    pending.push(record(response));
  });
  context.on("page", (page) => {
    page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) problems.push(`${page.url()}: ${message.text()}`);
    });
  });
  return {
    context,
    async received() {
      await Promise.all(pending);
      return [...responses];
    },
    outside,
    problems,
    async close() {
      await Promise.all(pending);
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
