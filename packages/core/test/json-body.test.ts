import { describe, expect, it } from "vitest";
import { MalformedPayloadError } from "../src/errors.ts";
import { parsedOncePerBody, parseJsonBody } from "../src/json-body.ts";

describe("delivery bodies", () => {
  it("parse as JSON or fail as a malformed payload", () => {
    expect(parseJsonBody(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(() => parseJsonBody(Buffer.from("{a"))).toThrow(MalformedPayloadError);
  });

  it("are parsed once per body however often they are read, and again for other bytes", () => {
    let parses = 0;
    const parse = parsedOncePerBody((raw) => {
      parses++;
      return parseJsonBody(raw);
    });
    const body = Buffer.from('{"a":1}');
    expect(parse(body)).toBe(parse(body));
    expect(parses).toBe(1);
    parse(Buffer.from('{"a":1}'));
    expect(parses).toBe(2);
  });
});
