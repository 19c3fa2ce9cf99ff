export * from "./adapter-contract.ts";
export * from "./admin-client.ts";
export * from "./deliver.ts";
export * from "./eventually.ts";
export * from "./fake-server.ts";
