import type { Page } from "playwright-core";

export interface PageWords {
  /** Text nodes, accessible names and titles the page carries, outside identifiers shown as code. */
  texts: string[];
  /** Texts marked as another language than the document's (`lang`), which a screen reader reads as such. */
  marked: { lang: string; text: string }[];
}

/**
 * Everything a person can read or hear on the page: every text node (visually hidden ones too, screen readers read
 * them), the attributes that become accessible names or tooltips, option labels and the document's title. Left out:
 * script and style, `<code>` (identifiers: ids, a target, the API's field names, a bot's user id) and the values
 * typed into fields.
 */
export function pageWords(page: Page): Promise<PageWords> {
  return page.evaluate(() => {
    const documentLang = document.documentElement.lang;
    const texts: string[] = [document.title];
    const marked: { lang: string; text: string }[] = [];
    const take = (element: Element, words: string | null) => {
      const text = words?.trim();
      if (!text) return;
      const lang = element.closest("[lang]")?.getAttribute("lang") ?? documentLang;
      if (lang === documentLang) texts.push(text);
      else marked.push({ lang, text });
    };
    const skipped = "script, style, code, noscript";
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent && !parent.closest(skipped)) take(parent, node.textContent);
    }
    for (const element of Array.from(document.body.querySelectorAll("*"))) {
      if (element.closest(skipped)) continue;
      for (const name of ["aria-label", "aria-description", "title", "placeholder", "alt"]) {
        take(element, element.getAttribute(name));
      }
    }
    return { texts, marked };
  });
}

/**
 * Latin words left in Japanese texts once the allowed ones are taken out: product names, the terms Japanese
 * technical writing keeps in Latin letters, platform identifiers (scopes, events, methods), and what the admin typed.
 * Each allowed word is taken out only as a whole word, so "Slack" does not excuse "Slacking".
 */
export function latinLeft(texts: string[], allowed: readonly string[]): string[] {
  const longestFirst = [...allowed].sort((a, b) => b.length - a.length);
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
  const allowedWords = new RegExp(`(?<![A-Za-z0-9_])(?:${longestFirst.map(literal).join("|")})(?![A-Za-z0-9_])`, "g");
  return texts.filter((text) => /[A-Za-z]/.test(text.replace(allowedWords, " ")));
}
