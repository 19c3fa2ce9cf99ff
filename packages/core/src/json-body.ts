import { MalformedPayloadError } from "./errors.ts";

/** A verified delivery's body as JSON; anything else is a 400. */
export function parseJsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw new MalformedPayloadError("the body is not JSON");
  }
}
