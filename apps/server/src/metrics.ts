import { setTimeout as sleep } from "node:timers/promises";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { HeldHistogram } from "./held-histogram.ts";
import { TalliedCounter } from "./tallied-counter.ts";

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const slowBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** What the gauges read at scrape time: the shared queue's depth, and whether the shared store answers. */
export interface MetricSources {
  depth(): Promise<number>;
  pingStore(): Promise<unknown>;
  /** Whether the tenants' database lets calls through (its breaker, read without a round trip). */
  databaseReachable(): boolean;
}

/** A scrape must not hang on a store that is away: past this, the store counts as down, and its depth unknown. */
const storeProbeMs = 1_000;

/**
 * The Prometheus metrics of one instance (`GET /metrics`). infra/grafana and infra/prometheus chart and alert on
 * these names; apps/server/test/observability.test.ts checks they all exist.
 */
export function createMetrics({ depth, pingStore, databaseReachable }: MetricSources) {
  const registry = new Registry();
  // The event loop's lag sampled every 50 ms, not prom-client's 10: each sample is a wake-up of the loop, and at 100 a
  // second they were most of an idle instance's CPU (7.5 of 12.5 ms a second). 300 samples a 15 s scrape still give
  // the dashboard's p99.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 50 });
  const registers = [registry];
  return {
    registry,
    deliveries: new TalliedCounter({
      name: "resident_deliveries_received_total",
      help: "Verified message deliveries received, before deduplication",
      labelName: "platform",
      registers,
    }),
    platformRetries: new Counter({
      name: "resident_platform_retries_total",
      help: "Deliveries the platform marked as retries, by its reason",
      labelNames: ["platform", "reason"],
      registers,
    }),
    duplicates: new Counter({
      name: "resident_duplicates_suppressed_total",
      help: "Duplicates stopped, at the event layer (redeliveries) or the reply layer (twins)",
      labelNames: ["platform", "layer"],
      registers,
    }),
    replies: new Counter({
      name: "resident_replies_sent_total",
      help: "Replies posted to the platform",
      labelNames: ["platform"],
      registers,
    }),
    outcomeUnknown: new Counter({
      name: "resident_send_outcome_unknown_total",
      help: "Sends whose outcome could not be established; never resent",
      labelNames: ["platform"],
      registers,
    }),
    failures: new Counter({
      name: "resident_failures_total",
      help: "Failed attempts by pipeline stage (retried by the queue unless attempts ran out)",
      labelNames: ["platform", "stage"],
      registers,
    }),
    standby: new Counter({
      name: "resident_standby_passes_total",
      help: "Deliveries taken in through the PostgreSQL lane because Redis was unreachable (or its claim stuck)",
      labelNames: ["platform"],
      registers,
    }),
    failOpen: new Counter({
      name: "resident_fail_open_passes_total",
      help: "Deliveries processed without either shared store (Redis, PostgreSQL) because their workspace fails open",
      labelNames: ["platform"],
      registers,
    }),
    llmTokens: new Counter({
      name: "resident_llm_tokens_total",
      help: "LLM tokens used, input and output",
      labelNames: ["platform"],
      registers,
    }),
    toolCalls: new Counter({
      name: "resident_tool_calls_total",
      help: "The agent's tool calls by outcome (ok, error, unknown); replayed: read back from the journal, not made",
      labelNames: ["platform", "outcome", "replayed"],
      registers,
    }),
    overBudget: new Counter({
      name: "resident_budget_exceeded_total",
      help: "Messages answered with the over-budget reply instead of an LLM call, by the limit they met",
      labelNames: ["platform", "limit"],
      registers,
    }),
    queueDepth: new Gauge({
      name: "resident_queue_depth",
      help: "Jobs waiting, delayed or running in the shared queue",
      registers,
      async collect() {
        const counted = depth().catch(() => Number.NaN);
        this.set(await Promise.race([counted, sleep(storeProbeMs, Number.NaN, { ref: false })]));
      },
    }),
    sharedStoreUp: new Gauge({
      name: "resident_shared_store_up",
      help: "1 while the shared store (Redis) answers this instance; 0 while the PostgreSQL lane takes deliveries in",
      registers,
      async collect() {
        const reachable = pingStore().then(
          () => 1,
          () => 0,
        );
        this.set(await Promise.race([reachable, sleep(storeProbeMs, 0, { ref: false })]));
      },
    }),
    databaseUp: new Gauge({
      name: "resident_database_up",
      help: "1 while the tenants' database (PostgreSQL) answers this instance; 0 while its calls fail at once and the instance takes no jobs",
      registers,
      collect() {
        this.set(databaseReachable() ? 1 : 0);
      },
    }),
    ackLatency: new HeldHistogram({
      name: "resident_ack_latency_seconds",
      help: "Time from a webhook's arrival to its answer",
      labelNames: ["platform", "status"],
      buckets: latencyBuckets,
      registers,
    }),
    llmLatency: new Histogram({
      name: "resident_llm_latency_seconds",
      help: "Time the agent took to answer",
      labelNames: ["platform"],
      buckets: slowBuckets,
      registers,
    }),
    eventToReply: new Histogram({
      name: "resident_event_to_reply_seconds",
      help: "Time from a message's arrival to its reply being posted",
      labelNames: ["platform"],
      buckets: slowBuckets,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
