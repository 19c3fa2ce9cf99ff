import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { en } from "@resident/admin/i18n/en";
import { ja } from "@resident/admin/i18n/ja";
import type { Page } from "playwright-core";
import { type Browser, openBrowser } from "./browser.ts";

/** Where the browser tests leave their screenshots, one folder per language. */
export const screenshots = fileURLToPath(new URL("../../../../test-output/console/", import.meta.url));

/** The console's languages, as the browser tests walk them. */
export const consoleLanguages = [
  { code: "ja", locale: "ja-JP", t: ja },
  { code: "en", locale: "en-US", t: en },
] as const;

/** A browser preferring `locale` with one page open, and the language's screenshot folder made. */
export async function openConsolePage(
  origin: string,
  language: { code: string; locale: string },
): Promise<{ browser: Browser; page: Page }> {
  await mkdir(`${screenshots}${language.code}/`, { recursive: true });
  const browser = await openBrowser(origin, { locale: language.locale });
  return { browser, page: await browser.context.newPage() };
}
