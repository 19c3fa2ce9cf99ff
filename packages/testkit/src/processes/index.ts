export * from "./child.ts";
export * from "./free-port.ts";
export * from "./instance.ts";
export * from "./nginx.ts";
export * from "./postgres.ts";
export * from "./postgres-server.ts";
export * from "./redis.ts";
export * from "./tcp-link.ts";
