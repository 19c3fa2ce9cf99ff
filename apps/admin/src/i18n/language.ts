import type { ConsoleLanguage, Translated } from "@resident/admin-api";
import { type Catalogue, en } from "./en.ts";
import { ja } from "./ja.ts";

export type { ConsoleLanguage };

const catalogues: Record<ConsoleLanguage, Catalogue> = { en, ja };
export const consoleLanguages = Object.keys(catalogues) as ConsoleLanguage[];

/** The admin's choice of language, kept across visits; not a secret, so localStorage is the place for it. */
const storageKey = "resident.language";

let current: ConsoleLanguage = initialLanguage();

/** The choice remembered, else the first of the browser's preferred languages the console speaks, else English. */
function initialLanguage(): ConsoleLanguage {
  const stored = remembered();
  if (isConsoleLanguage(stored)) return stored;
  for (const tag of navigator.languages) {
    const primary = tag.split("-")[0]?.toLowerCase();
    if (isConsoleLanguage(primary)) return primary;
  }
  return "en";
}

function isConsoleLanguage(value: string | null | undefined): value is ConsoleLanguage {
  return value !== null && value !== undefined && value in catalogues;
}

export function language(): ConsoleLanguage {
  return current;
}

/** The catalogue of the language chosen: every text of the console. */
export function text(): Catalogue {
  return catalogues[current];
}

/** A language's name for itself, so an admin finds theirs whatever language the page is in. */
export function ownName(code: ConsoleLanguage): string {
  return catalogues[code].languageName;
}

/** A platform guide's text in the language chosen. */
export function translated(words: Translated): string {
  return words[current];
}

export function chooseLanguage(chosen: ConsoleLanguage): void {
  current = chosen;
  try {
    localStorage.setItem(storageKey, chosen);
  } catch {
    // Storage refused (disabled, full): the choice holds for this visit only.
  }
}

function remembered(): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

/**
 * The locale for Intl: the browser's own tag when it is of the language chosen (en-GB keeps its day-month order),
 * else the bare language.
 */
export function intlLocale(): string {
  return navigator.languages.find((tag) => tag.split("-")[0]?.toLowerCase() === current) ?? current;
}
