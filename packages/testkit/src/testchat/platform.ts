import { definePlatform } from "@resident/core";
import { TestchatAdapter } from "./adapter.ts";
import { testchatCredentialsSchema } from "./credentials.ts";
import { testchatGuide } from "./guide.ts";

/**
 * A fourth platform that exists only in tests, to prove that adding a platform is its package and one line of the
 * server's list. Reads TESTCHAT_API_URL (its fake's URL; unset, a reserved name that never resolves).
 */
export const testchatPlatform = definePlatform({
  id: "testchat",
  webhookPath: "/testchat/webhook",
  credentialsSchema: testchatCredentialsSchema,
  secrets: { fields: ["apiToken", "signingSecret"], headers: [] },
  defaultFailMode: "open",
  guide: testchatGuide,
  createAdapter: ({ env }) => new TestchatAdapter({ apiUrl: env.TESTCHAT_API_URL || "http://testchat.invalid" }),
});
