import { describe, expect, it } from "vitest";
import { slackCredentialsSchema, slackPlatform } from "../src/index.ts";

describe("slackCredentialsSchema", () => {
  const valid = { signingSecret: "8f742231b10e8888abcd99yyyzzz85a5", botToken: "xoxb-1234-5678-AbCdEfGh" };

  it("accepts a signing secret and a bot token, rotating or not", () => {
    expect(slackCredentialsSchema.parse(valid)).toEqual(valid);
    const rotating = { ...valid, botToken: "xoxe.xoxb-1-MS0yLTEyMzQ1Njc4OTAx" };
    expect(slackCredentialsSchema.parse(rotating)).toEqual(rotating);
  });

  it("accepts a rotating token's refresh token and expiry (epoch ms, from a form's text too)", () => {
    const rotating = {
      ...valid,
      botToken: "xoxe.xoxb-1-MS0yLTEyMzQ1Njc4OTAx",
      botRefreshToken: "xoxe-1-My0xLTEyMzQ1Njc4",
      botTokenExpiresAt: 1_800_000_000_000,
    };
    expect(slackCredentialsSchema.parse(rotating)).toEqual(rotating);
    expect(slackCredentialsSchema.parse({ ...rotating, botTokenExpiresAt: "1800000000000" })).toEqual(rotating);
  });

  it("refuses a refresh token that is not one, an expiry that is not a time, an expiry without a refresh token", () => {
    const rotating = { ...valid, botRefreshToken: "xoxe-1-My0xLTEyMzQ1Njc4", botTokenExpiresAt: 1_800_000_000_000 };
    const cases = [
      { ...rotating, botRefreshToken: "xoxb-1234-5678-AbCdEfGh" },
      { ...rotating, botTokenExpiresAt: "tomorrow" },
      { ...rotating, botTokenExpiresAt: -5 },
      { ...valid, botTokenExpiresAt: 1_800_000_000_000 },
    ];
    for (const input of cases) {
      const result = slackCredentialsSchema.safeParse(input);
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error?.issues)).not.toContain("xoxb-1234-5678-AbCdEfGh");
    }
  });

  it("accepts an app-level token for Socket Mode, with or without a signing secret", () => {
    const socketMode = { botToken: valid.botToken, appToken: "xapp-1-A111-222-abcdef" };
    expect(slackCredentialsSchema.parse(socketMode)).toEqual(socketMode);
    expect(slackCredentialsSchema.parse({ ...valid, ...socketMode })).toEqual({ ...valid, ...socketMode });
  });

  it("refuses a user or app token as the bot token, a bot token as the app token, a blank secret, no way in, without echoing the values", () => {
    const cases = [
      { ...valid, botToken: "xoxp-1234-5678-AbCdEfGh" },
      { ...valid, botToken: "xapp-1-A111-222-abcdef" },
      { ...valid, signingSecret: "" },
      { ...valid, signingSecret: "has spaces in it which no secret has" },
      { ...valid, appToken: "xoxb-1234-5678-AbCdEfGh" },
      { signingSecret: valid.signingSecret },
      { botToken: valid.botToken },
    ];
    for (const input of cases) {
      const result = slackCredentialsSchema.safeParse(input);
      expect(result.success).toBe(false);
      const issues = JSON.stringify(result.error?.issues);
      for (const value of Object.values(input).filter(Boolean)) expect(issues).not.toContain(value);
    }
  });

  it("is the platform's schema, and new Slack workspaces fail closed", () => {
    expect(slackPlatform.credentialsSchema).toBe(slackCredentialsSchema);
    expect(slackPlatform.defaultFailMode).toBe("closed");
  });
});
