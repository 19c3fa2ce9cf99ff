import { plainText } from "@resident/core";
import { z } from "zod";

/** Headers the transport itself sets: an admin's auth header may not replace them. */
const reservedHeaders = new Set([
  "host",
  "connection",
  "content-length",
  "content-type",
  "accept",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "must be an HTTP header name")
  .refine((name) => !reservedHeaders.has(name.toLowerCase()), "is set by the MCP transport itself");

/**
 * An MCP server to attach to a workspace (Streamable HTTP). `name` prefixes its tools' names as the model sees them
 * (`crm__lookup_order`), so it is short and plain. Credentials go in `authHeader`, which is stored encrypted and
 * never shown again; a URL with a user name or password in it is refused, as the URL is shown.
 */
export const toolServerInputSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,23}$/, "must be 1-24 lower-case letters, digits or '-'"),
    url: z
      .url({ protocol: /^https?$/, error: "must be an http or https URL" })
      .max(2_000)
      .refine(
        (url) => !/^[^:]+:\/\/[^/?#]*@/.test(url),
        "must not carry a user name or password (give them as authHeader)",
      ),
    authHeader: z
      .object({ name: headerName.default("Authorization"), value: plainText().min(1).max(8_000) })
      .strict()
      .optional(),
  })
  .strict();

export type ToolServerInput = z.input<typeof toolServerInputSchema>;
