import { z } from "zod";

/*
 * PostgreSQL refuses NUL in text and jsonb (a 500 where a 400 belongs), and no name, prompt or credential needs a
 * control character; a multi-line text keeps tab and line breaks. One rule for every text field the admin API takes.
 */
const lineControls = /\p{Cc}/u;
/** Every control character but tab, line feed and carriage return. */
const textControls = /[^\P{Cc}\t\n\r]/u;
const message = "must not contain control characters";

/** A string without control characters (tab and line breaks allowed when `multiline`). */
export function plainText(options: { multiline?: boolean } = {}) {
  const controls = options.multiline ? textControls : lineControls;
  return z.string().refine((text) => !controls.test(text), message);
}

/** True when no string anywhere in `value` (an object's values, a list's items) holds a control character. */
export function isFreeOfControls(value: unknown): boolean {
  if (typeof value === "string") return !lineControls.test(value);
  if (value && typeof value === "object") return Object.values(value).every(isFreeOfControls);
  return true;
}

/** A record of credential values, none holding a control character. */
export const credentialFields = z.record(z.string(), z.unknown()).refine(isFreeOfControls, `values ${message}`);
