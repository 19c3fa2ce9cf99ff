import { settle } from "@resident/testkit";
import { type DeployedInstance, seededRandom, shuffle } from "@resident/testkit/deployment";
import { appMention, type FakeEnvelope, type FakeSlackBot, twinOf } from "@resident/testkit/slack";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, llmTag, notExactly, percentiles, question } from "./support/messages.ts";

/*
 * Slack Socket Mode across three instances. The fake Slack sends each envelope to one random open connection of the
 * app and again, with retry_attempt, when it is not acknowledged within 3 s; the instances hold the connections as
 * leased slots. Every message arrives as its app_mention and its message twin, each envelope of them sent once or
 * twice (Slack does deliver an event twice). Counted at the fakes: one reply and one LLM call per message, every
 * envelope acknowledged, none given up — through a storm, a kill -9 of an instance holding connections mid-storm,
 * and Slack's refresh_requested disconnect of every connection.
 */

const leaseSeconds = 3;
const seed = Number(process.env.STORM_SEED ?? Date.now() % 1_000_000);

const d = useDeployment({
  instances: 3,
  platforms: ["slack"],
  env: {
    RECEIVER_LEASE_SECONDS: String(leaseSeconds),
    CLAIM_LEASE_SECONDS: "4",
    JOB_LOCK_SECONDS: "4",
    WORKER_CONCURRENCY: "8",
  },
  instanceEnv: (_i, name) => ({ INSTANCE_ID: name }),
  logLevel: "info",
});

interface SocketWorkspace {
  tenantId: string;
  workspaceId: string;
  bot: FakeSlackBot;
  admin: ReturnType<typeof d>["operator"];
}

async function connectSocketMode(): Promise<SocketWorkspace> {
  const tenant = await d().operator.tenantWithAdmin("Socket Mode");
  const bot = d().slack.addBot();
  const appToken = d().slack.socketMode.addApp(bot.appId);
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "slack",
    name: "No public URL",
    credentials: { botToken: bot.token, appToken },
  });
  return { tenantId: tenant.tenantId, workspaceId: workspace.id, bot, admin: tenant.admin };
}

/** The connections as the admin API (the console) shows them: which instance holds each, and its state. */
async function shown(ws: SocketWorkspace) {
  return (await ws.admin.connections(ws.tenantId, ws.workspaceId)).connections;
}

/** Waits until `count` connections are open at the fake and shown open, on as many instances as `spread`. */
async function settled(ws: SocketWorkspace, count: number, spread: number) {
  return vi.waitFor(
    async () => {
      expect(d().slack.socketMode.open(ws.bot.appId)).toHaveLength(count);
      const connections = await shown(ws);
      expect(connections.filter((c) => c.state === "open")).toHaveLength(count);
      expect(new Set(connections.map((c) => c.instanceId)).size).toBe(spread);
      return connections;
    },
    { timeout: 40_000, interval: 250 },
  );
}

interface Message {
  tag: string;
  thread: string;
  envelopes: unknown[];
}

function messages(ws: SocketWorkspace, prefix: string, count: number, random: () => number): Message[] {
  return Array.from({ length: count }, () => {
    const { tag, text } = question(prefix);
    const mention = appMention(ws.bot, text);
    const envelopes = [mention, twinOf(mention)].flatMap((payload) =>
      random() < 0.5 ? [payload, payload] : [payload],
    );
    return { tag, thread: `${mention.event.channel}:${mention.event.ts}`, envelopes };
  });
}

/** Sends every message's envelopes in a shuffled order, `perSecond` of them a second; resolves to what was sent. */
async function send(ws: SocketWorkspace, planned: Message[], perSecond: number, random: () => number) {
  const all = shuffle(
    planned.flatMap((m) => m.envelopes),
    random,
  );
  const sent: FakeEnvelope[] = [];
  for (let i = 0; i < all.length; i += perSecond / 10) {
    for (const payload of all.slice(i, i + perSecond / 10))
      sent.push(d().slack.socketMode.deliver(ws.bot.appId, payload));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return sent;
}

/** Waits until every envelope is acknowledged or given up, and the queue is empty. */
async function answered(sent: FakeEnvelope[]) {
  await vi.waitFor(() => expect(sent.filter((e) => e.acks.length === 0 && !e.givenUp)).toHaveLength(0), {
    timeout: 60_000,
    interval: 250,
  });
  await drained(d(), 120_000);
  await settle(2_000);
}

/**
 * One reply per message at the fake Slack, in its thread, and one LLM call per message. With a `victim` killed
 * mid-answer: one call per message among the survivors, and at most one by the victim — the answers it had asked
 * for but not yet journaled when it froze are asked again, once, by the survivor that takes its job over.
 */
function verdict(title: string, planned: Message[], sent: FakeEnvelope[], victim?: DeployedInstance) {
  const tags = new Set(planned.map((m) => m.tag));
  const { replies, calls: all } = countByTag(d(), tags);
  const byVictim = new Map<string, number>();
  for (const call of d().llm.calls()) {
    const tag = llmTag(call);
    if (tag && victim && d().instanceOf(call) === victim) byVictim.set(tag, (byVictim.get(tag) ?? 0) + 1);
  }
  const calls = new Map([...all].map(([tag, n]) => [tag, n - (byVictim.get(tag) ?? 0)]));
  for (const [tag, n] of calls) if (n === 0 && byVictim.get(tag) === 1) calls.set(tag, 1);
  expect(
    notExactly(tags, byVictim).filter((entry) => !/×[01]$/.test(entry)),
    "asked twice by the victim",
  ).toEqual([]);
  const threads = d().slack.countsByThread();
  const redelivered = sent.filter((e) => e.attempts.length > 1);
  report(title, {
    seed,
    messages: planned.length,
    envelopes: sent.length,
    redelivered: redelivered.length,
    retryReasons: [...new Set(redelivered.flatMap((e) => e.attempts.slice(1).map((a) => a.retryReason)))],
    givenUp: sent.filter((e) => e.givenUp).length,
    ackMs: percentiles(sent.flatMap((e) => e.acks.map((a) => a.afterMs))),
    connectionsOpened: d().slack.socketMode.history.length,
  });
  expect(
    sent.filter((e) => e.givenUp),
    "envelopes Slack gave up on",
  ).toEqual([]);
  expect(
    sent.filter((e) => e.acks.length === 0),
    "envelopes never acknowledged",
  ).toEqual([]);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(notExactly(tags, calls), "messages not given to the LLM exactly once").toEqual([]);
  expect(
    planned.filter((m) => threads.get(m.thread) !== 1).map((m) => m.tag),
    "answers not in their thread",
  ).toEqual([]);
}

let ws: SocketWorkspace;

it("spreads one connection per instance, and answers a storm over Socket Mode exactly once", {
  timeout: 180_000,
}, async () => {
  ws = await connectSocketMode();
  const connections = await settled(ws, 3, 3);
  report("socket mode connections", { connections: connections.map((c) => `${c.slot}@${c.instanceId}`) });

  const random = seededRandom(seed);
  const planned = messages(ws, "sm", 200, random);
  const sent = await send(ws, planned, 200, random);
  await answered(sent);
  verdict("socket mode storm", planned, sent);
  // Every instance took envelopes in: the fake spread them over connections held by all three.
  const byConnection = new Set(sent.flatMap((e) => e.acks.map((a) => a.connectionId)));
  expect(byConnection.size).toBeGreaterThanOrEqual(3);
});

it("loses nothing and answers nothing twice when an instance holding connections freezes, then is killed mid-storm", {
  timeout: 180_000,
}, async () => {
  const random = seededRandom(seed + 1);
  const victimName = (await shown(ws))[0]?.instanceId;
  const victim = d().instances.find((i) => i.name === victimName);
  if (!victim?.pid) throw new Error(`no running instance holds slot 0: ${victimName}`);
  const planned = messages(ws, "smk", 150, random);
  d().llm.hold(1_500);
  const sending = send(ws, planned, 60, random);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  // Frozen first, its sockets still open: the envelopes Slack sends it go unacknowledged and are sent again, to a
  // random connection, after 3 s. Then kill -9: no release, no ack, no goodbye.
  process.kill(victim.pid, "SIGSTOP");
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  await victim.kill();
  const killedAt = Date.now();
  const sent = await sending;
  // Two instances are left: one connection on each.
  const after = await settled(ws, 2, 2);
  report("socket mode after kill -9", {
    victim: victim.name,
    connections: after.map((c) => `${c.slot}@${c.instanceId}`),
    settledInMs: Date.now() - killedAt,
    victimLlmCalls: d()
      .llm.calls()
      .filter((call) => d().instanceOf(call) === victim).length,
  });
  try {
    expect(after.map((c) => c.instanceId)).not.toContain(victim.name);
    d().llm.clearFaults();
    await answered(sent);
    verdict("socket mode kill -9", planned, sent, victim);
    // The frozen instance's envelopes came again, with retry_attempt and retry_reason, and were answered elsewhere.
    expect(sent.filter((e) => e.attempts.some((a) => a.retryReason === "timeout")).length).toBeGreaterThan(0);
  } finally {
    d().llm.clearFaults();
    await victim.start();
  }
  await settled(ws, 3, 3);
});

it("re-opens every connection after Slack's refresh_requested, losing nothing sent meanwhile", {
  timeout: 180_000,
}, async () => {
  const random = seededRandom(seed + 2);
  const before = new Set(
    d()
      .slack.socketMode.open(ws.bot.appId)
      .map((c) => c.id),
  );
  const planned = messages(ws, "smr", 60, random);
  const sending = send(ws, planned, 40, random);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(d().slack.socketMode.disconnect(ws.bot.appId, "refresh_requested")).toBe(3);
  const sent = await sending;
  await vi.waitFor(
    () => {
      const now = d().slack.socketMode.open(ws.bot.appId);
      expect(now).toHaveLength(3);
      expect(now.filter((c) => before.has(c.id))).toEqual([]);
    },
    { timeout: 30_000, interval: 250 },
  );
  await settled(ws, 3, 3);
  await answered(sent);
  verdict("socket mode refresh_requested", planned, sent);
});
