import { randomBytes } from "node:crypto";
import type { Delivered } from "@resident/testkit";
import type { AnthropicCall } from "@resident/testkit/anthropic";
import { type DeployedInstance, type Deployment, inParallel, tally } from "@resident/testkit/deployment";
import { vi } from "vitest";

/*
 * Bookkeeping shared by the system tests: every user message carries a unique tag (`#s17-ab12cd`) in its text, which
 * the fake LLM sees in the question and every fake platform sees in the answer ("answer to: … #s17-ab12cd …"), so
 * replies and LLM calls are attributed to messages by that tag, and anything carrying no known tag is a stray.
 */

export type Platform = "slack" | "teams" | "chatwork";

export interface Planned {
  platform: Platform;
  tag: string;
  text: string;
  /** Each delivery of this message, as a thunk that posts it when called (through nginx, or to `via`). */
  deliveries: ((via?: string) => Promise<Delivered>)[];
}

const run = randomBytes(3).toString("hex");
let serial = 0;

/** A unique tag and a question carrying it. */
export function question(prefix: string, words = "what are your opening hours?"): { tag: string; text: string } {
  const tag = `#${prefix}${++serial}-${run}`;
  return { tag, text: `${words} ${tag}` };
}

const tagPattern = /#[a-z]+\d+-[0-9a-f]{6}/g;

/** The tags a text carries. */
export function tagsIn(text: string): string[] {
  return text.match(tagPattern) ?? [];
}

/** The tag of the question an LLM call answered (its last user turn). */
export function llmTag(call: AnthropicCall): string | undefined {
  const last = call.messages.findLast((m) => m.role === "user");
  return last ? tagsIn(last.text).at(-1) : undefined;
}

export interface Fired {
  /** How many deliveries were answered with each status (-1: no answer at all). */
  statuses: Map<number, number>;
  /** Each delivery's round trip through nginx, in the order fired. */
  latencies: { ms: number; status: number; startedAt: number }[];
}

/** Every delivery of every message, in the given order, at most `limit` in flight. */
export async function fire(thunks: (() => Promise<Delivered>)[], limit: number): Promise<Fired> {
  const t0 = Date.now();
  const latencies = await inParallel(thunks, limit, (deliver) => timed(deliver, t0));
  return { statuses: tally(latencies.map((l) => l.status)), latencies };
}

/** One delivery's round trip and status (-1: no answer at all), `startedAt` counted from `t0`. */
async function timed(deliver: () => Promise<Delivered>, t0: number): Promise<Fired["latencies"][number]> {
  const startedAt = Date.now();
  const status = await deliver().then(
    (response) => response.status,
    () => -1,
  );
  return { ms: Date.now() - startedAt, status, startedAt: startedAt - t0 };
}

/** Median, 99th percentile and maximum of round trips, in ms. */
export function percentiles(ms: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** Reply texts at the fakes, by platform: Slack posts, Teams connector activities, Chatwork posts. */
function replyTexts(d: Deployment): Record<Platform, string[]> {
  return {
    slack: safe(() => d.slack.posts().map((post) => post.text)),
    teams: safe(() => d.teams.activities.map((a) => String(a.activity.text ?? ""))),
    chatwork: safe(() => d.chatwork.posts.map((post) => post.body)),
  };
}

/** The fake Slack's posts whose text carries any of these tags. */
export function slackPostsFor(d: Deployment, tags: Iterable<string>) {
  const wanted = [...tags];
  return d.slack.posts().filter((post) => wanted.some((tag) => post.text.includes(tag)));
}

/** The text of the fake Slack's first post carrying this tag ("" if none). */
export function slackAnswerTo(d: Deployment, tag: string): string {
  return slackPostsFor(d, [tag])[0]?.text ?? "";
}

function safe(read: () => string[]): string[] {
  try {
    return read();
  } catch {
    return [];
  }
}

/** How many replies and LLM calls each tag got, and what carried no known tag. */
export function countByTag(d: Deployment, tags: Set<string>) {
  const replies = new Map<string, number>();
  const strays: string[] = [];
  for (const [platform, texts] of Object.entries(replyTexts(d))) {
    for (const text of texts) {
      const known = tagsIn(text).filter((t) => tags.has(t));
      if (known.length !== 1) strays.push(`${platform}: ${text.slice(0, 120)}`);
      for (const t of known) replies.set(t, (replies.get(t) ?? 0) + 1);
    }
  }
  const calls = new Map<string, number>();
  let strayCalls = 0;
  for (const call of d.llm.calls()) {
    const t = llmTag(call);
    if (t && tags.has(t)) calls.set(t, (calls.get(t) ?? 0) + 1);
    else strayCalls++;
  }
  return { replies, calls, strays, strayCalls };
}

/** The tags of `tags` with no reply yet. */
export function unanswered(d: Deployment, tags: Set<string>): string[] {
  const { replies } = countByTag(d, tags);
  return [...tags].filter((t) => !replies.has(t));
}

/** Waits until the shared queue holds nothing (waiting, delayed, active) as seen by every running instance. */
export async function drained(d: Deployment, timeoutMs = 60_000): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const instance of d.instances.filter((i) => i.running)) {
        const depth = (await instance.metrics()).sum("resident_queue_depth");
        if (depth !== 0) throw new Error(`${instance.name} sees ${depth} jobs in the queue`);
      }
    },
    { timeout: timeoutMs, interval: 250 },
  );
}

/** Per-instance counters from /metrics, for the report: deliveries received, replies sent. */
export async function perInstance(d: Deployment, metric: string, labels: Record<string, string> = {}) {
  const out: Record<string, number> = {};
  for (const instance of d.instances.filter((i) => i.running)) {
    out[instance.name] = (await instance.metrics()).sum(metric, labels);
  }
  return out;
}

/** Each of `tags`' LLM calls, counted apart: those `instance` made, and the other instances'. */
export function llmCallsSplit(d: Deployment, tags: Set<string>, instance: DeployedInstance | undefined) {
  const [its, others] = [new Map<string, number>(), new Map<string, number>()];
  for (const call of d.llm.calls()) {
    const t = llmTag(call);
    if (!t || !tags.has(t)) continue;
    const counts = d.instanceOf(call) === instance ? its : others;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { its, others };
}

/** LLM calls per instance (by the key each presents). */
export function llmCallsPerInstance(d: Deployment): Record<string, number> {
  const out: Record<string, number> = {};
  for (const call of d.llm.calls()) {
    const name = d.instanceOf(call)?.name ?? "unknown";
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** Messages whose count in `counts` is not exactly `expected`, as `tag×count`, for a readable failure. */
export function notExactly(tags: Iterable<string>, counts: Map<string, number>, expected = 1): string[] {
  return [...tags].filter((t) => (counts.get(t) ?? 0) !== expected).map((t) => `${t}×${counts.get(t) ?? 0}`);
}

/**
 * The acks of every running instance by latency, from its ack-latency histogram: how many, how many took over 1 s
 * and over 2.5 s (nginx's proxy_read_timeout, past which it gives the delivery to another instance), per platform.
 */
export async function ackLatency(d: Deployment): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const instance of d.instances.filter((i) => i.running)) {
    const samples = await instance.metrics();
    for (const platform of ["slack", "teams", "chatwork"]) {
      const count = samples.sum("resident_ack_latency_seconds_count", { platform });
      if (count === 0) continue;
      const within = (le: string) => samples.sum("resident_ack_latency_seconds_bucket", { platform, le });
      const row = out[platform] ?? { acks: 0, over1s: 0, over2500ms: 0 };
      out[platform] = {
        acks: (row.acks ?? 0) + count,
        over1s: (row.over1s ?? 0) + count - within("1"),
        over2500ms: (row.over2500ms ?? 0) + count - within("2.5"),
      };
    }
  }
  return out;
}

/** One delivery at its moment, `at` ms after the storm begins. */
export interface Scheduled {
  at: number;
  deliver: () => Promise<Delivered>;
}

/** Deliveries at their own moments (a storm spread over time, across whatever breaks meanwhile), `limit` in flight. */
export async function firePaced(schedule: Scheduled[], limit: number): Promise<Fired> {
  const t0 = Date.now();
  const inOrder = [...schedule].sort((a, b) => a.at - b.at);
  const latencies = await inParallel(inOrder, limit, async ({ at, deliver }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 + at - Date.now())));
    return timed(deliver, t0);
  });
  return { statuses: tally(latencies.map((l) => l.status)), latencies };
}

/**
 * For a failing exactly-once check: each tag's LLM calls (by instance, ms after `t0`, status) and the platform calls
 * that carried its tag (method, ms after `t0`, status), so that a doubled answer's report says who sent what, when.
 */
export function storyOf(d: Deployment, tags: string[], t0: number): string {
  const platformCalls = [
    ...d.slack.server.calls.filter((call) => call.path.startsWith("/api/chat.")),
    ...d.chatwork.server.calls.filter((call) => call.method === "POST"),
  ];
  return tags
    .map((tag) => {
      const llm = d.llm
        .calls()
        .filter((call) => llmTag(call) === tag)
        .map((call) => `${d.instanceOf(call)?.name ?? "?"}@${call.request.at - t0}:${call.status ?? "open"}`);
      const sent = platformCalls
        .filter((call) => call.rawBody.includes(tag))
        .map((call) => `${call.path.split("/").pop()}@${call.at - t0}:${call.status ?? "open"}`);
      return `${tag} llm=[${llm.join(" ")}] platform=[${sent.join(" ")}]`;
    })
    .join("\n");
}
