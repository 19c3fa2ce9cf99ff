import { describe, expect, it } from "vitest";
import { failureSummary } from "../src/failure-summary.ts";

describe("failureSummary", () => {
  const credentials = { apiToken: "tok-0123456789", webhookTokens: ["c2VjcmV0LW9uZQ==", "c2VjcmV0"] };

  it("keeps the error's own words and cuts out every credential value, in lists too", () => {
    const error = new Error("POST /rooms/1/messages failed for tok-0123456789 (c2VjcmV0LW9uZQ==): 401 Unauthorized");
    expect(failureSummary(error, credentials)).toBe(
      "POST /rooms/1/messages failed for [redacted] ([redacted]): 401 Unauthorized",
    );
  });

  it("is short", () => {
    const summary = failureSummary(new Error("x".repeat(5_000)), credentials);
    expect(summary).toHaveLength(300);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("cuts a credential out before shortening, so no prefix of one survives", () => {
    const summary = failureSummary(new Error(`${"y".repeat(290)}tok-0123456789`), credentials);
    expect(summary).not.toContain("tok-");
  });

  it("describes what is thrown even when it is not an Error", () => {
    expect(failureSummary("plain tok-0123456789", credentials)).toBe("plain [redacted]");
  });
});
