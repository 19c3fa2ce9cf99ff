import { RedisServer } from "@resident/testkit/processes";
import { redisBackend } from "./support/redis-backend.ts";
import { storeContract } from "./support/store-contract.ts";

storeContract("redis standalone", async () => {
  const server = await RedisServer.start();
  const backend = await redisBackend(server.url);
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await server.dispose();
    },
  };
});
