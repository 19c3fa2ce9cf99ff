export * from "./adapter-contract.ts";
export * from "./fake-server.ts";
