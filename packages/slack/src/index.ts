export { SlackAdapter, type SlackAdapterOptions } from "./adapter.ts";
export { type SlackCredentials, slackCredentialsSchema } from "./credentials.ts";
export { slackGuide } from "./guide.ts";
export { verifySlackSignature } from "./verify.ts";
