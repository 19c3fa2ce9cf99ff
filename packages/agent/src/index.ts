export * from "./agent-error.ts";
export * from "./anthropic-agent.ts";
export * from "./create-agent.ts";
export * from "./echo-agent.ts";
export type * from "./tools/agent-tool.ts";
export * from "./tools/current-time.ts";
export * from "./tools/mcp-client.ts";
export { defaultToolLimits, type ToolLimits } from "./tools/tool-loop.ts";
