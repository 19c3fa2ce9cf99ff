import { RedisServer } from "@resident/testkit/processes";
import { afterAll, beforeAll } from "vitest";
import { queueContract } from "./support/queue-contract.ts";

let server: RedisServer;
beforeAll(async () => {
  server = await RedisServer.start();
});
afterAll(() => server?.dispose());

queueContract("redis standalone", () => server.url);
