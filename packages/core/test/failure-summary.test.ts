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

  it("cuts out a credential URL-encoded, form-encoded, JSON-escaped or in base64, as an echoing endpoint writes it", () => {
    const password = 'p/a+s&s=w"o\\rd ü';
    const echoed = [
      `client_secret=${encodeURIComponent(password)}`,
      new URLSearchParams({ client_secret: password }).toString(),
      JSON.stringify({ client_secret: password }),
      Buffer.from(password).toString("base64"),
      Buffer.from(password).toString("base64url"),
    ];
    for (const text of echoed) {
      const summary = failureSummary(new Error(`422 from login: ${text}`), { appPassword: password });
      expect({ text, summary }).toEqual({ text, summary: expect.stringContaining("[redacted]") });
      expect(summary).not.toContain("a%2Bs");
      expect(summary).not.toContain("a+s");
      expect(summary).not.toContain(Buffer.from(password).toString("base64").slice(0, 12));
    }
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
