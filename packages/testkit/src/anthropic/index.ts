export * from "./fake-anthropic.ts";
