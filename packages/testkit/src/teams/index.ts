export * from "./activities.ts";
export * from "./fake-bot-framework.ts";
export * from "./route-table.ts";
export * from "./signing-keys.ts";
