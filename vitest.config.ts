import { configDefaults, defineConfig } from "vitest/config";

/** The system tests: whole deployments (Redis, PostgreSQL, nginx, several resident processes) per file. */
const system = "apps/server/test/system/**/*.test.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, system],
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
