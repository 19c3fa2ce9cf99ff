export * from "./fake-mcp.ts";
