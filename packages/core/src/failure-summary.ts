/** Long enough for a platform's own error text; a stack of causes is the log's job. */
const maxLength = 300;

/**
 * A failure as an admin may read it (the console's "last error"): the error's own message, short, with every value
 * of the workspace's credentials cut out — adapters never quote one, and this keeps it so should a library do it.
 */
export function failureSummary(error: unknown, credentials: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (const secret of stringsIn(credentials).sort((a, b) => b.length - a.length)) {
    message = message.replaceAll(secret, "[redacted]");
  }
  return message.length > maxLength ? `${message.slice(0, maxLength - 1)}…` : message;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return value === "" ? [] : [value];
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}
