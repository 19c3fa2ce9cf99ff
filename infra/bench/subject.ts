import type { DeployedSlackWorkspace, Deployment } from "@resident/testkit/deployment";

/** What the bench drives of a deployment: this checkout's testkit gives one, and so does an earlier commit's. */
export type BenchDeployment = Pick<
  Deployment,
  "url" | "instances" | "redis" | "database" | "nginx" | "llm" | "slack" | "instanceOf" | "logs" | "close"
>;

/** A deployment under measurement: the service of this checkout, or of an earlier commit (before.ts). */
export interface Subject {
  dep: BenchDeployment;
  /** The Slack workspace it answers, answers posted rather than streamed (as the figures were taken). */
  ws: DeployedSlackWorkspace;
  /**
   * Keeps the workers from answering, so that a run measures the ack path alone; `resume` lets them go on. `held`:
   * the jobs they have taken since the pause and sit on.
   */
  workers: { pause(): unknown; resume(): unknown; held(): number };
  /** Jobs waiting, running or delayed in its queue. */
  queueDepth(): Promise<number>;
  /** Stops everything it started, by pid; safe to call twice. */
  close(): Promise<void>;
}
