export type * from "./api-types.ts";
export * from "./client.ts";
export type * from "./platform-guide.ts";
