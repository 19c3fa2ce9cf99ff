import { createAgent } from "@resident/agent";
import {
  type AppDistribution,
  BudgetGuard,
  type Consumer,
  EventGate,
  FeedbackIntake,
  Ingest,
  type Lane,
  type Logger,
  MemoryClaimStore,
  MemoryConversationMemory,
  MemoryQueue,
  MemoryQueuedAdmission,
  OutboundSender,
  type PlatformDescriptor,
  type QueuedEvent,
  ReceiverPool,
  ReplyLedger,
  ReplyWorker,
  ThreadReader,
  UsageBatch,
} from "@resident/core";
import { ensureLaneSchema, PgClaimStore, PgQueue, PgReceiverSlots } from "@resident/store";
import { openTenants, type Tenants } from "@resident/tenants";
import { withAppReceivers } from "./app-receivers.ts";
import type { Config } from "./config.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { PlatformSet } from "./platform-set.ts";
import { memoryState, redisState, type SharedState } from "./shared-state.ts";
import { ServiceTelemetry } from "./telemetry.ts";

/** The fail-open lane's dedupe remembers this many deliveries, per instance. */
const localDedupeKeys = 50_000;

export interface Runtime {
  config: Config;
  shared: SharedState;
  tenants: Tenants;
  platforms: PlatformSet;
  /** The operator's apps installed with an "Add to …" button, by platform; empty when none is configured. */
  distributions: ReadonlyMap<string, AppDistribution>;
  ingest: Ingest;
  metrics: Metrics;
  /** Budgets, held before each LLM call and read by the admin API. */
  budgets: BudgetGuard;
  /** Where the receivers' connections are held, cluster-wide (the console shows them). */
  receiverSlots: PgReceiverSlots;
  /** Starts keeping the receivers' connections open (Socket Mode), unless ROLE=worker. */
  startReceivers(): void;
  /** Starts consuming jobs: the shared queues unless ROLE=web, and always the local fail-open lane. */
  startWorkers(): void;
  /** Stops consuming (waiting for jobs in hand), flushes stats, closes stores. */
  close(): Promise<void>;
}

export async function createRuntime(
  config: Config,
  logger: Logger,
  descriptors: readonly PlatformDescriptor[],
): Promise<Runtime> {
  if (!config.redisUrl) {
    logger.warn({}, "REDIS_URL is not set: state is kept in this process, which is right for one instance only");
  }
  const shared = config.redisUrl
    ? await redisState({ ...config, redisUrl: config.redisUrl }, logger)
    : memoryState(config);
  const tenants = await openTenants({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    secretKey: config.secretKey,
    logger,
    changeFeed: shared.changeFeed,
    platforms: descriptors.map((d) => d.id),
    defaultFailModes: Object.fromEntries(descriptors.map((d) => [d.id, d.defaultFailMode])),
  });
  const platforms = new PlatformSet(descriptors, {
    env: config.env,
    logger,
    limiter: shared.limiter,
    credentials: tenants.credentials,
  });
  const { adapters } = platforms;
  // With Redis, PostgreSQL is the second shared lane and the record of every reply (packages/core/README.md).
  const standby = config.redisUrl ? await standbyLane(tenants, config, logger, () => !shared.up()) : undefined;
  const ledgerClaims = standby?.claims ?? shared.claims;
  const metrics = createMetrics({
    depth: async () => {
      const depths = await Promise.all([shared.queue.depth(), standby?.queue.depth() ?? 0]);
      return depths.reduce((sum, depth) => sum + depth, 0);
    },
    pingStore: () => shared.ping(),
    databaseReachable: () => tenants.sql.reachable,
  });
  const telemetry = new ServiceTelemetry(metrics, shared.stats, logger);
  const agent = createAgent({
    apiKey: config.anthropic.apiKey,
    baseUrl: config.anthropic.baseUrl,
    traced: config.otlp,
    logger,
  });

  const localClaims = new MemoryClaimStore({ maxClaims: localDedupeKeys });
  const localQueue = new MemoryQueue<QueuedEvent>({
    concurrency: config.workerConcurrency,
    attempts: config.jobAttempts,
  });
  const localMemory = new MemoryConversationMemory();
  // Token counts no budget waits on go to Redis every 5 s, not one MULTI an answer: the console charts days.
  const usageBatch = new UsageBatch(shared.usage, logger).start(5_000);
  const budgets = new BudgetGuard(shared.usage, shared.limiter, logger, Date.now, usageBatch);
  const threads = new ThreadReader({ cache: shared.cache, logger });
  const lanes: { shared: Lane; standby?: Lane; local: Lane } = {
    shared: {
      gate: new EventGate(shared.claims, config.instanceId, config.claimLeaseMs),
      queue: shared.queue,
      admission: shared.admission,
    },
    standby: standby && {
      gate: new EventGate(standby.claims, config.instanceId, config.claimLeaseMs),
      queue: standby.queue,
    },
    local: {
      gate: new EventGate(localClaims, config.instanceId, config.claimLeaseMs),
      queue: localQueue,
      admission: new MemoryQueuedAdmission(localClaims, localQueue),
    },
  };
  const distributions = platforms.distributions({
    installations: tenants.installations,
    publicUrl: config.publicUrl,
  });
  // Clicks are gated like deliveries, but never in the fail-open lane: a vote is kept only in the database.
  const feedback = new FeedbackIntake(
    [lanes.shared.gate, lanes.standby?.gate].filter((gate) => gate !== undefined),
    tenants.feedback,
  );
  const ingest = new Ingest({
    directory: tenants.directory,
    adapters,
    ...lanes,
    installations: tenants.installations,
    feedback,
    telemetry,
    logger,
  });
  const worker = (claims: typeof shared.claims, memory: typeof shared.memory) =>
    new ReplyWorker({
      directory: tenants.directory,
      adapters,
      ledger: new ReplyLedger(claims, config.claimLeaseMs),
      sender: new OutboundSender(),
      agent,
      memory,
      telemetry,
      logger,
      budgets,
      threads,
    });
  const consumers: Consumer[] = [];
  // On the database every instance shares, so the connections stay coordinated while Redis is away.
  const receiverSlots = new PgReceiverSlots(tenants.sql);
  const receivers = new ReceiverPool({
    instanceId: config.instanceId,
    slots: receiverSlots,
    ...withAppReceivers(tenants.directory, distributions, ingest),
    receivers: platforms.receivers,
    logger,
    leaseMs: config.receiverLeaseMs,
  });

  return {
    config,
    shared,
    tenants,
    platforms,
    distributions,
    ingest,
    metrics,
    budgets,
    receiverSlots,
    startReceivers() {
      if (config.role !== "worker") receivers.start();
    },
    startWorkers() {
      if (config.role !== "web") {
        // An instance cut off from the ledger's database takes no jobs: the instances that reach it answer them.
        const options = standby && { takingJobs: () => tenants.sql.reachable };
        for (const queue of [shared.queue, standby?.queue]) {
          if (queue) consumers.push(queue.consume(worker(ledgerClaims, shared.memory).handle, options));
        }
      }
      consumers.push(lanes.local.queue.consume(worker(localClaims, localMemory).handle));
    },
    async close() {
      // First, while the stores are open: their slots go back, and other instances take them over at once.
      await receivers.close();
      await Promise.all(consumers.map((consumer) => consumer.close()));
      await telemetry.close();
      await usageBatch.close().catch((err) => logger.warn({ err }, "token usage not written at shutdown"));
      standby?.claims.close();
      await tenants.close();
      await shared.close();
    },
  };
}

/** The PostgreSQL lane on the tenants' database: its claims hold every reply, and take deliveries while Redis is away. */
async function standbyLane(tenants: Tenants, config: Config, logger: Logger, sharedAway: () => boolean) {
  await ensureLaneSchema(tenants.sql);
  let lastError = 0;
  const onError = (err: Error) => {
    if (Date.now() - lastError < 30_000) return;
    lastError = Date.now();
    logger.warn({ err: err.message }, "PostgreSQL lane error (repeats are suppressed for 30 s)");
  };
  return {
    claims: new PgClaimStore(tenants.sql),
    queue: new PgQueue<QueuedEvent>(tenants.sql, {
      concurrency: config.workerConcurrency,
      attempts: config.jobAttempts,
      lockDurationMs: config.jobLockMs,
      expectingJobs: sharedAway,
      onError,
    }),
  };
}
