export * from "./activities.ts";
export * from "./fake-bot-framework.ts";
export * from "./signing-keys.ts";
