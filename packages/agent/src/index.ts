export * from "./agent-error.ts";
export * from "./anthropic-agent.ts";
export * from "./create-agent.ts";
export * from "./echo-agent.ts";
