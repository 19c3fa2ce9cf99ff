import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type Axe from "axe-core";
import type { Page } from "playwright-core";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core, loaded from node_modules into the page, on the page as it is now: every rule axe runs by default
 * (WCAG 2.x A and AA, and its best practices), none turned off.
 *
 * Loaded by evaluating its source through the DevTools protocol rather than with addScriptTag: addScriptTag inserts
 * an inline <script>, which the console's CSP (script-src 'self') rightly refuses, and the test must not loosen
 * that CSP (it checks that nothing broke it).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await readFile(axePath, "utf8"));
  return page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof Axe };
    const results = await axe.run(document, { resultTypes: ["violations"] });
    // A run that checked nothing would report no violation too.
    if (results.passes.length === 0) throw new Error("axe-core checked no rule on this page");
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
  });
}
