export { SlackAdapter, type SlackAdapterOptions } from "./adapter.ts";
export { type SlackCredentials, slackCredentialsSchema } from "./credentials.ts";
export { slackPlatform } from "./platform.ts";
export { verifyDelivery } from "./verify.ts";
