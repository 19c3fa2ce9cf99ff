export { type SlackCredentials, slackCredentialsSchema } from "./credentials.ts";
export { SlackAdapter, type SlackAdapterOptions } from "./slack-adapter.ts";
export { verifySlackSignature } from "./verify-signature.ts";
