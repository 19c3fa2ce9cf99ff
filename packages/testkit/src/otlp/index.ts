export * from "./fake-otlp.ts";
