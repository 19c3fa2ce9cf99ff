import { VerificationError } from "@resident/core";
import { signSlackRequest } from "@resident/testkit/slack";
import { describe, expect, it } from "vitest";
import { verifyDelivery } from "../src/index.ts";
import { fixtureBytes, signingSecret } from "./harness.ts";

// Slack's published test vector (api.slack.com/authentication/verifying-requests-from-slack).
const timestamp = 1531420618;
const vector = {
  rawBody: fixtureBytes("signing_test_vector.body.txt"),
  headers: {
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
  },
};
const at = (seconds: number) => seconds * 1000;

function rejection(run: () => void): VerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VerificationError);
    return error as VerificationError;
  }
  throw new Error("expected a VerificationError");
}

describe("verifyDelivery", () => {
  it("accepts Slack's own test vector", () => {
    expect(() => verifyDelivery(vector, signingSecret, at(timestamp))).not.toThrow();
  });

  it("accepts anywhere inside the 5-minute window, either side of our clock", () => {
    expect(() => verifyDelivery(vector, signingSecret, at(timestamp + 300))).not.toThrow();
    expect(() => verifyDelivery(vector, signingSecret, at(timestamp - 300))).not.toThrow();
  });

  it("rejects a stale timestamp and one from the future", () => {
    expect(rejection(() => verifyDelivery(vector, signingSecret, at(timestamp + 301))).message).toMatch(/window/);
    expect(rejection(() => verifyDelivery(vector, signingSecret, at(timestamp - 301))).message).toMatch(/window/);
  });

  it("rejects a tampered body and a wrong secret", () => {
    const tampered = { ...vector, rawBody: Buffer.from(vector.rawBody.toString().replace("roadrunner", "coyote")) };
    expect(rejection(() => verifyDelivery(tampered, signingSecret, at(timestamp))).message).toMatch(/match/);
    rejection(() => verifyDelivery(vector, "0".repeat(32), at(timestamp)));
  });

  it("rejects missing, repeated or malformed headers", () => {
    const without = (name: string) => ({
      ...vector,
      headers: Object.fromEntries(Object.entries(vector.headers).filter(([key]) => key !== name)),
    });
    const withHeader = (name: string, value: string | string[]) => ({
      ...vector,
      headers: { ...vector.headers, [name]: value },
    });
    const now = at(timestamp);
    expect(rejection(() => verifyDelivery(without("x-slack-signature"), signingSecret, now)).message).toMatch(
      /missing X-Slack-Signature/,
    );
    expect(rejection(() => verifyDelivery(without("x-slack-request-timestamp"), signingSecret, now)).message).toMatch(
      /X-Slack-Request-Timestamp/,
    );
    rejection(() => verifyDelivery(withHeader("x-slack-request-timestamp", "soon"), signingSecret, now));
    rejection(() => verifyDelivery(withHeader("x-slack-signature", "v0=abc"), signingSecret, now));
    rejection(() => verifyDelivery(withHeader("x-slack-signature", "v1=a2114d57b48e"), signingSecret, now));
    const repeated = [vector.headers["x-slack-signature"], vector.headers["x-slack-signature"]];
    rejection(() => verifyDelivery(withHeader("x-slack-signature", repeated), signingSecret, now));
  });

  it("never puts the secret or the expected signature in its message", () => {
    const tampered = { ...vector, rawBody: Buffer.from("token=forged") };
    const messages = [
      rejection(() => verifyDelivery(tampered, signingSecret, at(timestamp))).message,
      rejection(() => verifyDelivery(vector, signingSecret, at(timestamp + 3600))).message,
    ];
    for (const message of messages) {
      expect(message).not.toContain(signingSecret);
      expect(message).not.toContain("a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
    }
  });

  it("accepts what the testkit signs and rejects it under another secret", () => {
    const signed = signSlackRequest({ signingSecret, body: { type: "event_callback" }, timestamp });
    expect(() => verifyDelivery(signed, signingSecret, at(timestamp))).not.toThrow();
    rejection(() => verifyDelivery(signed, "someOtherSecret0123456789", at(timestamp)));
  });
});
