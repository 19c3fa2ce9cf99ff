export { ChatworkAdapter, type ChatworkAdapterOptions } from "./adapter.ts";
export { type ChatworkCredentials, chatworkCredentialsSchema } from "./credentials.ts";
export { chatworkFailModeConsequences } from "./fail-mode.ts";
export { chatworkPlatform } from "./platform.ts";
export { type ChatworkLimit, type ChatworkLimits, chatworkLimits } from "./rate-limits.ts";
export { verifyChatworkSignature } from "./verify.ts";
