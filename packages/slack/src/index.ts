export { type SlackCredentials, slackCredentialsSchema } from "./credentials.ts";
export { slackGuide } from "./guide.ts";
export { SlackAdapter, type SlackAdapterOptions } from "./slack-adapter.ts";
export { verifySlackSignature } from "./verify-signature.ts";
