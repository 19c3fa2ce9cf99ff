export * from "./fake-chatwork.ts";
export * from "./webhook.ts";
