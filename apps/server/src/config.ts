import { hostname } from "node:os";
import { z } from "zod";

const optional = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value));
const port = z.coerce.number().int().min(0).max(65_535);
const seconds = (fallback: number) => z.coerce.number().positive().default(fallback);

/**
 * The environment the service reads; every variable is optional (DESIGN.md, "The outside contract"). Each platform
 * reads its own variables from `Config.env` (its PlatformDescriptor says which).
 */
const environment = z.object({
  PORT: port.default(3000),
  /** Unset: /metrics and /readyz on PORT (keep them from the public then, as nginx.conf does); set: there only. */
  METRICS_PORT: port.optional(),
  /** Addresses / CIDRs (comma-separated) of the proxies whose X-Forwarded-For is believed; unset: none. */
  TRUSTED_PROXIES: optional,
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: optional,
  ROLE: z.enum(["all", "web", "worker"]).default("all"),
  INSTANCE_ID: optional,
  REDIS_URL: optional,
  DATABASE_URL: optional,
  DATA_DIR: z.string().default("./data"),
  ADMIN_TOKEN: optional,
  SECRET_KEY: optional,
  ANTHROPIC_API_KEY: optional,
  ANTHROPIC_BASE_URL: optional,
  OTEL_EXPORTER_OTLP_ENDPOINT: optional,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Tuning, rarely needed: how long a claim lives without renewal, and how long a job's lock does. Together they
   * bound how soon a killed instance's messages are answered by another: its job locks lapse within a lock and the
   * stalled check (every half lock) hands them back, by when its reply claims have lapsed too — about 12 s at worst
   * (the kill-mid-storm system test prints it). Both are renewed while work runs (a third and a half of them).
   */
  CLAIM_LEASE_SECONDS: seconds(10),
  JOB_LOCK_SECONDS: seconds(8),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /** Tries of a job whose answer fails (exponential backoff between them, 1 s doubling to 60 s). */
  JOB_ATTEMPTS: z.coerce.number().int().positive().default(8),
  /** How long a receiver connection's slot lives without renewal: how soon a dead instance's are taken over. */
  RECEIVER_LEASE_SECONDS: seconds(12),
});

/**
 * On SIGTERM, jobs in hand get this long to finish; past it they are left to their locks, which another instance
 * takes over. infra/kubernetes's terminationGracePeriodSeconds covers it plus the preStop pause (a test checks).
 */
export const shutdownGraceMs = 25_000;

/**
 * Of that grace, the requests in flight at SIGTERM get this long; then their connections are closed. A webhook's ack
 * or an admin call takes milliseconds; what outlasts this is a client that stopped sending or reading (a body
 * half-sent, a console script half-read), which must not hold the jobs' shutdown until the grace runs out.
 */
export const httpDrainMs = 5_000;

export type Role = "all" | "web" | "worker";

export interface Config {
  port: number;
  host: string;
  metricsPort?: number;
  /** Empty: the client address is the socket's. */
  trustedProxies: string[];
  publicUrl: string;
  role: Role;
  instanceId: string;
  redisUrl?: string;
  databaseUrl?: string;
  dataDir: string;
  adminToken?: string;
  secretKey?: string;
  anthropic: { apiKey?: string; baseUrl?: string };
  /** The environment as given, for the platforms' own variables. */
  env: Readonly<Record<string, string | undefined>>;
  logLevel: string;
  /** Export traces over OTLP (an OTLP endpoint is set); otherwise tracing is off. */
  otlp: boolean;
  claimLeaseMs: number;
  jobLockMs: number;
  workerConcurrency: number;
  jobAttempts: number;
  receiverLeaseMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = environment.parse(env);
  return {
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.METRICS_PORT,
    trustedProxies: (e.TRUSTED_PROXIES ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    role: e.ROLE,
    instanceId: e.INSTANCE_ID ?? `${hostname()}-${process.pid}`,
    redisUrl: e.REDIS_URL,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    secretKey: e.SECRET_KEY,
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
    env,
    logLevel: e.LOG_LEVEL,
    otlp: Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    claimLeaseMs: e.CLAIM_LEASE_SECONDS * 1000,
    jobLockMs: e.JOB_LOCK_SECONDS * 1000,
    workerConcurrency: e.WORKER_CONCURRENCY,
    jobAttempts: e.JOB_ATTEMPTS,
    receiverLeaseMs: e.RECEIVER_LEASE_SECONDS * 1000,
  };
}
