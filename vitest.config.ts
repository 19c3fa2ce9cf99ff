import { availableParallelism } from "node:os";
import { defaultServerConditions } from "vite";
import { configDefaults, defineConfig } from "vitest/config";

/** The system tests: whole deployments (Redis, PostgreSQL, nginx, several resident processes) per file. */
const system = "apps/server/test/system/**/*.test.ts";
/** Package tests that talk to a running service: Redis, or PostgreSQL (the tenants' second backend). */
const packageServices = [
  "packages/store/test/{failover-rate-limiter,outage,redis-*}.test.ts",
  "packages/tenants/test/**/*.test.ts",
];
/** The server's tests that need nothing running: they read the sources, or count in memory. */
const serverUnit = "apps/server/test/{platform-names,request-metrics,service-telemetry,store-gauges}.test.ts";

/**
 * Workspace packages are run from their TypeScript sources (their exports' "source" condition), never from a build.
 * Vite's "module" condition is left out: it picks bundler-only entries (@opentelemetry/api's extensionless ESM) that
 * Node cannot load once the dependency is externalized.
 */
const conditions = ["source", ...defaultServerConditions.filter((condition) => condition !== "module")];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["source"] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default, one worker fewer than the cores, runs one file at a time on a 2-core machine; the unit and
    // services files spend most of their time waiting on Redis, PostgreSQL or Chromium, so two share the cores well.
    // The system project still runs its files one by one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // eventsource-parser (under the MCP SDK) exports its TypeScript sources under "source" too: Vite transforms them,
    // where Node, loading an externalized dependency, could not.
    server: { deps: { inline: [/@modelcontextprotocol\/sdk/, "eventsource-parser"] } },
    projects: [
      {
        // Needs no service at all: `npx vitest run --project unit` passes on a machine with no Redis or PostgreSQL.
        extends: true,
        test: {
          name: "unit",
          include: [
            "packages/*/test/**/*.test.ts",
            "apps/admin/test/**/*.test.ts",
            "infra/bench/test/*.test.ts",
            serverUnit,
          ],
          exclude: [...configDefaults.exclude, ...packageServices],
        },
      },
      {
        // The server in-process (on a PostgreSQL database, some with Chromium) and the package tests above.
        extends: true,
        test: {
          name: "services",
          include: [...packageServices, "apps/server/test/*.test.ts"],
          exclude: [...configDefaults.exclude, serverUnit],
        },
      },
      {
        // One file at a time, after everything else (a later group order), so that a deployment of several processes
        // has the machine to itself: its timing assertions are bounds derived from leases, not races against load.
        extends: true,
        test: {
          name: "system",
          include: [system],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 180_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
