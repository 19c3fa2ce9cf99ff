import type { ZodError, ZodType } from "zod";
import { MalformedPayloadError } from "./errors.ts";

/**
 * A schema's complaints as lines of `path: message`, the path starting at `root` when given. Zod's messages name
 * the rule broken, never the value given, so no credential or message text leaks through one.
 */
export function issueLines(error: ZodError, root?: string): string[] {
  return error.issues.map((issue) => {
    const path = [...(root ? [root] : []), ...issue.path.map(String)].join(".");
    return `${path || "(root)"}: ${issue.message}`;
  });
}

/** A verified delivery's body (or a part of it) as `schema` reads it; else MalformedPayloadError (→ 400). */
export function parsePayload<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new MalformedPayloadError(`malformed ${what}: ${issueLines(result.error).join("; ")}`);
}
