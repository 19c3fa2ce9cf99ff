import { StoreHealth, type StoreHealthOptions } from "@resident/core";
import type { RedisClient } from "./connection.ts";

/**
 * Whether Redis is up, as the ack path should see it: core's StoreHealth probing with PING on the connection the
 * fail-fast parts use, and fed by their commands' outcomes (`storeCall`). Down, every command of those parts rejects
 * at once and deliveries go to the PostgreSQL lane.
 */
export class RedisHealth extends StoreHealth {
  constructor(client: RedisClient, options: StoreHealthOptions = {}) {
    super(async () => {
      if ((await client.ping()) !== "PONG") throw new Error("PING answered otherwise");
    }, options);
  }
}
