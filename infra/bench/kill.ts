import { setTimeout as sleep } from "node:timers/promises";
import type { AnthropicCall } from "@resident/testkit/anthropic";
import { type DeployedInstance, type DeployedSlackWorkspace, inParallel } from "@resident/testkit/deployment";
import { twinStorm } from "./storm.ts";
import type { BenchDeployment } from "./subject.ts";

export interface KillResult {
  messages: number;
  deliveries: number;
  victim: string;
  /** The victim's answers in flight (held by the fake LLM) the moment it was killed. */
  inFlightAtKill: number;
  /** Deliveries the victim held unacknowledged when it died, sent again as Slack would. */
  redelivered: number;
  /** From the kill to the last of those in-flight messages' answers at the fake Slack. */
  lastAnsweredAfterMs: number;
  /** Every stormed message answered exactly once, none of the victim's asked twice by the survivors. */
  exact: boolean;
  problems: string[];
}

/**
 * `kill -9` of an instance in the middle of a twin storm, with the shipped lease and lock: how long after the kill
 * the last of its in-flight messages was answered (the issue's ≤ 15 s). The fake LLM holds every answer `holdMs`,
 * so the victim dies holding several; the first instance seen with three in flight is the victim. What it left
 * unacknowledged is delivered again, as Slack retries a delivery that got no answer.
 * apps/server/test/system/kill-mid-storm.test.ts is the same case as a test, with its bound asserted.
 */
export async function killMidStorm(
  dep: BenchDeployment,
  ws: DeployedSlackWorkspace,
  options: { messages: number; holdMs: number; timeoutMs: number },
): Promise<KillResult> {
  const run = Date.now().toString(36);
  const storm = twinStorm(
    ws,
    options.messages,
    (i) => `kill-storm question [k${i}-${run}], when does the office open?`,
  );
  const threadOf = new Map(storm.map((message, i) => [`k${i}-${run}`, message.thread]));
  const threads = new Set(threadOf.keys());
  const deliveries = storm.flatMap((message) => message.bodies);
  const questionOf = (call: AnthropicCall) => {
    const last = call.messages.findLast((m) => m.role === "user");
    const found = last && /\[(k\d+-[0-9a-z]+)\]/.exec(last.text)?.[1];
    return found && threads.has(found) ? found : undefined;
  };
  const postsBefore = dep.slack.callsTo("chat.postMessage").length;
  const callsBefore = dep.llm.callCount();
  const answeredAt = (): Map<string, number> => {
    const at = new Map<string, number>();
    for (const call of dep.slack.callsTo("chat.postMessage").slice(postsBefore)) {
      const body = call.body as { channel?: string; thread_ts?: string };
      const thread = `${body.channel}:${body.thread_ts}`;
      if (!at.has(thread)) at.set(thread, call.at);
    }
    return at;
  };

  dep.llm.hold(options.holdMs);
  // Read off the fake once per look, and only this storm's calls: the fake Slack answers in this same process, and
  // a look that re-read every call of the run for each instance starved it until the instances' posts timed out.
  const inFlight = (): Map<DeployedInstance, AnthropicCall[]> => {
    const held = new Map<DeployedInstance, AnthropicCall[]>();
    for (const call of dep.llm.calls(callsBefore)) {
      const instance = call.status === undefined ? dep.instanceOf(call) : undefined;
      if (!instance) continue;
      const calls = held.get(instance);
      if (calls) calls.push(call);
      else held.set(instance, [call]);
    }
    return held;
  };
  const statuses: number[] = new Array(deliveries.length).fill(-1);
  const firing = inParallel(deliveries, 64, async (body, i) => {
    statuses[i] = await ws.send(body).then(
      (response) => response.status,
      () => -1,
    );
  });
  let victim: DeployedInstance | undefined;
  const deadline = performance.now() + 60_000;
  while (!victim) {
    if (performance.now() > deadline) throw new Error("kill mid-storm: no instance came to hold three answers");
    const [busiest, calls] = [...inFlight()].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (busiest && calls && calls.length >= 3 && answeredAt().size >= 3) victim = busiest;
    else await sleep(25);
  }
  const heldAtKill = new Set((inFlight().get(victim) ?? []).flatMap((call) => questionOf(call) ?? []));
  await victim.kill();
  const killedAt = Date.now();
  await firing;
  const unacked = deliveries.filter((_, i) => statuses[i] !== 200);
  await inParallel(unacked, 16, (body) => ws.send(body));

  const heldThreads = [...heldAtKill].map((q) => threadOf.get(q) as string);
  const waitUntil = performance.now() + options.timeoutMs;
  while (heldThreads.some((thread) => !answeredAt().has(thread)) || answeredAt().size < storm.length) {
    if (performance.now() > waitUntil) break;
    await sleep(50);
  }
  dep.llm.clearFaults();
  const at = answeredAt();
  const lastAnsweredAfterMs = Math.max(0, ...heldThreads.map((thread) => (at.get(thread) ?? Number.NaN) - killedAt));

  const problems: string[] = [];
  const counts = dep.slack.countsByThread();
  const notOnce = storm.filter((message) => counts.get(message.thread) !== 1).length;
  if (notOnce > 0) problems.push(`${notOnce} of ${storm.length} stormed messages not answered exactly once`);
  if (heldAtKill.size === 0) problems.push("the victim held no answer when it died");
  const survivorCalls = new Map<string, number>();
  for (const call of dep.llm.calls().slice(callsBefore)) {
    const q = questionOf(call);
    if (q && dep.instanceOf(call) !== victim) survivorCalls.set(q, (survivorCalls.get(q) ?? 0) + 1);
  }
  const redoneWrong = [...heldAtKill].filter((q) => survivorCalls.get(q) !== 1).length;
  if (redoneWrong > 0) problems.push(`${redoneWrong} of the victim's in-flight messages not asked again exactly once`);
  return {
    messages: storm.length,
    deliveries: deliveries.length,
    victim: victim.name,
    inFlightAtKill: heldAtKill.size,
    redelivered: unacked.length,
    lastAnsweredAfterMs,
    exact: problems.length === 0,
    problems,
  };
}
