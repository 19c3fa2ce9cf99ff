export * from "./adapter-contract.ts";
export * from "./deliver.ts";
export * from "./fake-server.ts";
export * from "./settle.ts";
