import { type Deployment, type DeploymentOptions, startDeployment } from "@resident/testkit/deployment";
import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * SYSTEM_SABOTAGE=reply-ledger starts every instance with the reply ledger disabled (support/disable-reply-ledger.ts,
 * preloaded): a negative control. The exactly-once assertions must then fail — proof that they can.
 * SYSTEM_SABOTAGE=stream-record makes the ledger forget streamed messages (support/forget-streams.ts): the Teams
 * streaming kill test must then fail.
 */
const sabotages: Record<string, string> = {
  "reply-ledger": "./disable-reply-ledger.ts",
  "stream-record": "./forget-streams.ts",
};
const preload = sabotages[process.env.SYSTEM_SABOTAGE ?? ""];
const sabotage: Record<string, string> = preload
  ? { NODE_OPTIONS: `--import tsx --import ${new URL(preload, import.meta.url).href}` }
  : {};

/**
 * One deployment for a test file: started before its tests, closed (everything stopped by pid) after them even when
 * they fail, and every instance's captured log printed for each test that fails.
 */
export function useDeployment(given: DeploymentOptions | (() => DeploymentOptions) = {}): () => Deployment {
  let deployment: Deployment | undefined;
  beforeAll(async () => {
    const started = Date.now();
    // Options may be a function, read once the test file's own beforeAll hooks (registered first) have run.
    const options = typeof given === "function" ? given() : given;
    deployment = await startDeployment({ ...options, env: { ...options.env, ...sabotage } });
    report("deployment", { instances: deployment.instances.length, startedInMs: Date.now() - started });
  }, 180_000);
  beforeEach(({ task, onTestFailed }) => {
    if (task.fails) return; // expected to fail: its failure is the pass
    onTestFailed(() => {
      if (deployment) console.error(`instance logs of the failed test:\n${deployment.logs(300)}`);
    });
  });
  afterAll(async () => {
    const closing = Date.now();
    await deployment?.close();
    report("deployment", { closedInMs: Date.now() - closing });
  }, 120_000);
  return () => {
    if (!deployment) throw new Error("the deployment did not start");
    return deployment;
  };
}

/** Prints one line of counts in the test output, e.g. `[storm] messages=300 deliveries=1812 …`. */
export function report(title: string, counts: Record<string, unknown>): void {
  const line = Object.entries(counts)
    .map(([name, value]) => `${name}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
    .join(" ");
  console.log(`[${title}] ${line}`);
}
