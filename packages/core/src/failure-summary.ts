/** Long enough for a platform's own error text; a stack of causes is the log's job. */
const maxLength = 300;

/**
 * A failure as an admin may read it (the console's "last error"): the error's own message, short, with every value
 * of the workspace's credentials cut out — adapters never quote one, and this keeps it so should a library do it,
 * or should an endpoint echo the request it was sent: as written, URL-encoded (a form or a query), JSON-escaped, or
 * base64 / base64url.
 */
export function failureSummary(error: unknown, credentials: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  const forms = stringsIn(credentials).flatMap(encodedForms);
  for (const secret of [...new Set(forms)].sort((a, b) => b.length - a.length)) {
    message = message.replaceAll(secret, "[redacted]");
  }
  return message.length > maxLength ? `${message.slice(0, maxLength - 1)}…` : message;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return value === "" ? [] : [value];
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

/** The ways a secret is commonly written into a request or an error. */
function encodedForms(secret: string): string[] {
  const base64 = Buffer.from(secret, "utf8").toString("base64");
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    base64,
    base64.replace(/=+$/, ""),
    Buffer.from(secret, "utf8").toString("base64url"),
  ].filter((form) => form.length > 0);
}
