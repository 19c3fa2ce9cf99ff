import { intlLocale, text } from "./i18n/language.ts";

/** Numbers, dates and durations in the language chosen, by Intl: the console builds none of them by hand. */

export function formatCount(n: number): string {
  return new Intl.NumberFormat(intlLocale()).format(n);
}

export function formatTime(iso: string): string {
  return new Intl.DateTimeFormat(intlLocale(), { dateStyle: "medium", timeStyle: "medium" }).format(new Date(iso));
}

export function formatClock(iso: string): string {
  return new Intl.DateTimeFormat(intlLocale(), { hour: "2-digit", minute: "2-digit" }).format(new Date(iso));
}

/** "2 minutes ago", "2 分前", "just now". */
export function formatAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 10) return text().activity.justNow;
  const relative = new Intl.RelativeTimeFormat(intlLocale(), { numeric: "auto" });
  for (const [unit, size] of [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ] as const) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(seconds, "second");
}

/** "1 day", "24 時間", "90 seconds": the largest whole unit. */
export function formatSeconds(seconds: number): string {
  const [unit, size] =
    seconds % 86_400 === 0 ? ["day", 86_400] : seconds % 3_600 === 0 ? ["hour", 3_600] : ["second", 1];
  return new Intl.NumberFormat(intlLocale(), { style: "unit", unit, unitDisplay: "long" }).format(seconds / size);
}

/** A UTC day (`YYYY-MM-DD`) as the language writes a date. */
export function formatDay(day: string): string {
  return new Intl.DateTimeFormat(intlLocale(), { dateStyle: "medium", timeZone: "UTC" }).format(
    new Date(`${day}T00:00:00Z`),
  );
}
