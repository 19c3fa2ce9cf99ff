export { ChatworkAdapter, type ChatworkAdapterOptions } from "./adapter.ts";
export { type ChatworkCredentials, chatworkCredentialsSchema } from "./credentials.ts";
export { chatworkDefaultFailMode, chatworkFailModeConsequences } from "./fail-mode.ts";
export { chatworkGuide } from "./guide.ts";
export { type ChatworkLimit, type ChatworkLimits, chatworkLimits } from "./rate-limits.ts";
export { verifyChatworkSignature } from "./verify.ts";
