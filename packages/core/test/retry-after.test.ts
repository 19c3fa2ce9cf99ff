import { describe, expect, it } from "vitest";
import { retryAfterMs } from "../src/retry-after.ts";

describe("retryAfterMs", () => {
  it("reads seconds and HTTP dates, and nothing else", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2_000);
    expect(retryAfterMs("0.5", now)).toBe(500);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:03 GMT", now)).toBe(3_000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    for (const unreadable of [null, undefined, "", "-1", "soon"]) expect(retryAfterMs(unreadable, now)).toBeUndefined();
  });
});
