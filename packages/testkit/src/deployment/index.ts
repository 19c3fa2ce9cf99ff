export * from "./concurrency.ts";
export * from "./deployment.ts";
export * from "./instance.ts";
export * from "./metrics.ts";
export * from "./workspaces.ts";
