export { SlackAdapter, type SlackAdapterOptions } from "./adapter.ts";
export { type SlackCredentials, slackCredentialsSchema } from "./credentials.ts";
// What a posted answer carries, for npm run bench:clients to post as the service does.
export { answerBlocks } from "./feedback.ts";
export { slackPlatform } from "./platform.ts";
export { verifyDelivery } from "./verify.ts";
