import { definePlatform } from "@resident/core";
import { ChatworkAdapter } from "./adapter.ts";
import { chatworkCredentialsSchema } from "./credentials.ts";
import { chatworkDefaultFailMode } from "./fail-mode.ts";
import { chatworkGuide } from "./guide.ts";

/** Chatwork as the service knows it. Reads CHATWORK_API_URL (default https://api.chatwork.com/v2). */
export const chatworkPlatform = definePlatform({
  id: "chatwork",
  webhookPath: "/chatwork/webhook",
  credentialsSchema: chatworkCredentialsSchema,
  secrets: { fields: ["apiToken", "webhookToken", "webhookTokens"], headers: ["x-chatworktoken"] },
  defaultFailMode: chatworkDefaultFailMode,
  guide: chatworkGuide,
  createAdapter: ({ env, logger, limiter }) =>
    new ChatworkAdapter({ apiUrl: env.CHATWORK_API_URL || undefined, limiter, logger }),
});
