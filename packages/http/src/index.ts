export * from "./lean-fetch.ts";
