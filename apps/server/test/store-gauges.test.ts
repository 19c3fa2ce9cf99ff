import { expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";

it("answers a scrape while the stores hang: the depth unknown, Redis down, the database as its breaker says", async () => {
  const hangs = () => new Promise<never>(() => {});
  const metrics = createMetrics({ depth: hangs, pingStore: hangs, databaseReachable: () => false });
  const text = await metrics.registry.metrics();
  // prom-client writes NaN as "Nan".
  expect(text).toMatch(/^resident_queue_depth Nan$/m);
  expect(text).toMatch(/^resident_shared_store_up 0$/m);
  expect(text).toMatch(/^resident_database_up 0$/m);
});
