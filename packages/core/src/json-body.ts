import { MalformedPayloadError } from "./errors.ts";

/** A verified delivery's body as JSON; anything else is a 400. */
export function parseJsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw new MalformedPayloadError("the body is not JSON");
  }
}

/**
 * Wraps a body parser so that a delivery is parsed once however many steps read it (verify, then normalize): the
 * result is kept against the body's bytes, and goes with them.
 */
export function parsedOncePerBody<T>(parse: (rawBody: Buffer) => T): (rawBody: Buffer) => T {
  const parsed = new WeakMap<Buffer, T>();
  return (rawBody) => {
    if (parsed.has(rawBody)) return parsed.get(rawBody) as T;
    const value = parse(rawBody);
    parsed.set(rawBody, value);
    return value;
  };
}
