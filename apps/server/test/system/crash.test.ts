import { settle } from "@resident/testkit";
import type { DeployedInstance } from "@resident/testkit/deployment";
import { appMention, twinOf } from "@resident/testkit/slack";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import {
  countByTag,
  drained,
  fire,
  llmTag,
  notExactly,
  type Planned,
  question,
  slackPostsFor,
  storyOf,
} from "./support/messages.ts";

/*
 * An instance dies mid-answer. The fake LLM holds every answer for a few seconds; once one instance holds jobs (its
 * LLM calls are in flight) it is killed with SIGKILL: no shutdown, no release, no ack. Its jobs' locks lapse, the
 * survivors' stalled-job check takes them back, the reply claims of the dead attempts lapse, and every message is
 * answered exactly once — within a bound derived from the configured lease and lock, not from a guess of speed.
 */

const leaseSeconds = 4;
const lockSeconds = 4;
const concurrency = 6;
const holdMs = 3_000;

const d = useDeployment({
  instances: 3,
  env: {
    CLAIM_LEASE_SECONDS: String(leaseSeconds),
    JOB_LOCK_SECONDS: String(lockSeconds),
    WORKER_CONCURRENCY: String(concurrency),
  },
});

it("answers every message exactly once when an instance is killed mid-answer", { timeout: 180_000 }, async () => {
  const [slack, teams, chatwork] = await Promise.all([
    d().connectSlack(),
    d().connectTeams(),
    d().connectChatwork({ rooms: 6 }),
  ]);
  const planned: Planned[] = [];
  for (let i = 0; i < 36; i++) {
    const { tag, text } = question("ks");
    const mention = appMention(slack.bot, text);
    const twin = twinOf(mention);
    planned.push({ platform: "slack", tag, text, deliveries: [() => slack.send(mention), () => slack.send(twin)] });
  }
  for (let i = 0; i < 12; i++) {
    const { tag, text } = question("kt");
    const activity = teams.message(text);
    const retry = teams.retryOf(activity);
    planned.push({ platform: "teams", tag, text, deliveries: [() => teams.send(activity), () => teams.send(retry)] });
  }
  for (let i = 0; i < 12; i++) {
    const { tag, text } = question("kc");
    const message = chatwork.message(text, { roomId: chatwork.rooms[i % chatwork.rooms.length] });
    const deliveries = [() => chatwork.send(message.mention), () => chatwork.send(message.created)];
    planned.push({ platform: "chatwork", tag, text, deliveries });
  }
  const tags = new Set(planned.map((m) => m.tag));

  d().llm.hold(holdMs);
  const fired = await fire(
    planned.flatMap((m) => m.deliveries),
    32,
  );
  expect(Object.fromEntries(fired.statuses), "every delivery acked before the crash").toEqual({
    200: planned.reduce((n, m) => n + m.deliveries.length, 0),
  });

  // The victim: the first instance seen holding at least two answers in flight (LLM calls not yet answered).
  const inFlight = (instance: DeployedInstance) =>
    d()
      .llm.calls()
      .filter((call) => call.status === undefined && d().instanceOf(call) === instance);
  const victim = await vi.waitFor(
    () => {
      const busiest = [...d().instances].sort((a, b) => inFlight(b).length - inFlight(a).length)[0];
      if (!busiest || inFlight(busiest).length < 2) throw new Error("no instance holds two answers yet");
      return busiest;
    },
    { timeout: 30_000, interval: 20 },
  );
  await victim.kill();
  const killedAt = Date.now();
  // The answers it was waiting for when it died (the fake still holds them: their status is not set yet).
  const heldAtKill = new Set(inFlight(victim).map(llmTag));
  const answeredBeforeKill = countByTag(d(), tags).replies.size;

  // Bound: the dead worker's job lock lapses (lock) and a survivor's stalled check, run every half lock, takes the job
  // back (lock + two half-lock intervals at worst); the dead attempt's reply claim lapses (lease); the queue's backoff
  // while it waits for that (1 + 2 + 4 s at most); then the answer itself (hold); plus the rest of the queue, which
  // two survivors work through `concurrency` at a time; plus a margin for a loaded machine.
  const survivors = d().instances.filter((i) => i !== victim);
  const rounds = Math.ceil((tags.size - answeredBeforeKill) / (survivors.length * concurrency));
  const boundMs = 2 * lockSeconds * 1000 + leaseSeconds * 1000 + 7_000 + holdMs * (rounds + 1) + 20_000;
  await vi.waitFor(
    () => {
      const answered = countByTag(d(), tags).replies;
      const missing = [...tags].filter((t) => !answered.has(t));
      if (missing.length > 0) throw new Error(`${missing.length} messages unanswered: ${missing.slice(0, 5)}`);
    },
    { timeout: boundMs, interval: 100 },
  );
  const recoveredInMs = Date.now() - killedAt;
  await drained(d(), 60_000);
  await settle(2_000);

  const { replies, calls, strays } = countByTag(d(), tags);
  const victimCalls = d()
    .llm.calls()
    .filter((call) => d().instanceOf(call) === victim);
  const survivorCalls = new Map<string, number>();
  for (const call of d().llm.calls()) {
    const t = llmTag(call);
    if (t && d().instanceOf(call) !== victim) survivorCalls.set(t, (survivorCalls.get(t) ?? 0) + 1);
  }
  report("crash", {
    messages: tags.size,
    deliveries: planned.reduce((n, m) => n + m.deliveries.length, 0),
    victim: victim.name,
    victimLlmCalls: victimCalls.length,
    inFlightAtKill: heldAtKill.size,
    answeredBeforeKill,
    replies: [...replies.values()].reduce((a, b) => a + b, 0),
    llmCalls: [...calls.values()].reduce((a, b) => a + b, 0),
    recoveredInMs,
    boundMs,
  });

  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
  // The dead instance's answers in flight were given again, by a survivor, once; nothing else twice.
  expect(
    [...heldAtKill].filter((t) => survivorCalls.get(t ?? "") !== 1),
    "answers in flight at the kill, not redone once by a survivor",
  ).toEqual([]);
  expect(notExactly(tags, survivorCalls).filter((entry) => !entry.endsWith("×0"))).toEqual([]);

  // The killed instance comes back on its port and answers again; nginx sends it traffic once more.
  d().llm.clearFaults();
  await victim.restart({ kill: true, readiness: "readyz" });
  const after = Array.from({ length: 3 }, () => {
    const { tag, text } = question("kr");
    tags.add(tag);
    return { tag, mention: appMention(slack.bot, text) };
  });
  for (const { mention } of after) expect((await slack.send(mention, {}, victim.url)).status).toBe(200);
  await vi.waitFor(
    () =>
      expect(
        notExactly(
          after.map((a) => a.tag),
          countByTag(d(), tags).replies,
        ),
      ).toEqual([]),
    { timeout: 20_000, interval: 50 },
  );
});

/*
 * An instance that dies after the platform accepted its post but before it committed the reply leaves its sending
 * mark behind; the survivor that takes the job back reads the thread before posting, finds the post, and commits it.
 * The fake Slack widens that window deterministically (the post lands, its answer is held), so this is no race.
 */
it("answers once when the instance dies between the platform's acceptance and the commit", async () => {
  // A post, not a stream: the window is chat.postMessage's (a stream's id is recorded at its first write).
  const slack = await d().connectSlack({ streaming: false });
  d().llm.clearFaults();
  const { tag, text } = question("kp");
  const posts = () => slackPostsFor(d(), [tag]);
  d().slack.acceptThenTimeOut(15_000);
  expect((await slack.send(appMention(slack.bot, text))).status).toBe(200);
  await vi.waitFor(() => expect(posts()).toHaveLength(1), { timeout: 20_000, interval: 50 });
  const poster = d().instanceOf(
    d()
      .llm.calls()
      .find((call) => llmTag(call) === tag) as never,
  );
  if (!poster) throw new Error("no instance asked the LLM");
  await poster.kill();

  // Within the recovery bound (lock lapse and stalled check, lease lapse, backoff) a survivor reads the thread back.
  const boundMs = 2 * lockSeconds * 1000 + leaseSeconds * 1000 + 7_000 + 10_000;
  const channel = posts()[0]?.channel;
  const readBack = () =>
    d()
      .slack.callsTo("conversations.replies")
      .filter((call) => (call.body as { channel?: string })?.channel === channel);
  await vi.waitFor(() => expect(readBack().length).toBeGreaterThan(0), { timeout: boundMs, interval: 50 });
  await drained(d());
  report("crash after post", { poster: poster.name, replies: posts().length });
  expect(posts()).toHaveLength(1);
});

/*
 * An instance freezes mid-answer (SIGSTOP) for longer than every lease and lock, and then wakes up (SIGCONT) and goes
 * on where it stopped: the zombie holder. Meanwhile its leases lapsed and the survivors answered its messages; what it
 * had in hand (LLM answers that arrived while it slept, posts and streams it was about to make) must come to nothing.
 */
it("answers every message exactly once when an instance freezes past its leases mid-answer and then wakes up", {
  timeout: 180_000,
}, async () => {
  const [slack, chatwork] = await Promise.all([d().connectSlack(), d().connectChatwork({ rooms: 6 })]);
  const planned: Planned[] = [];
  for (let i = 0; i < 36; i++) {
    const { tag, text } = question("zs");
    const mention = appMention(slack.bot, text);
    planned.push({
      platform: "slack",
      tag,
      text,
      deliveries: [() => slack.send(mention), () => slack.send(twinOf(mention))],
    });
  }
  for (let i = 0; i < 24; i++) {
    const { tag, text } = question("zc");
    const message = chatwork.message(text, { roomId: chatwork.rooms[i % chatwork.rooms.length] });
    planned.push({
      platform: "chatwork",
      tag,
      text,
      deliveries: [() => chatwork.send(message.mention), () => chatwork.send(message.created)],
    });
  }
  const tags = new Set(planned.map((m) => m.tag));
  d().llm.clearFaults();
  d().llm.hold(holdMs);
  const fired = await fire(
    planned.flatMap((m) => m.deliveries),
    32,
  );
  expect(Object.fromEntries(fired.statuses), "every delivery acked").toEqual({ 200: planned.length * 2 });

  const inFlight = (instance: DeployedInstance) =>
    d()
      .llm.calls()
      .filter((call) => call.status === undefined && d().instanceOf(call) === instance && tags.has(llmTag(call) ?? ""));
  const sleeper = await vi.waitFor(
    () => {
      const busiest = [...d().instances].sort((a, b) => inFlight(b).length - inFlight(a).length)[0];
      if (!busiest?.pid || inFlight(busiest).length < concurrency - 1)
        throw new Error("no instance is nearly full yet");
      return busiest;
    },
    { timeout: 30_000, interval: 20 },
  );
  const heldAtFreeze = new Set(inFlight(sleeper).map(llmTag));
  process.kill(sleeper.pid as number, "SIGSTOP");
  const frozenAt = Date.now();
  // The sleeper's answers arrive while it sleeps (the fake answers them after holdMs); the survivors take its jobs
  // back and answer them once their locks and claims lapse.
  try {
    await vi.waitFor(
      () => {
        const answered = countByTag(d(), tags).replies;
        const missing = [...tags].filter((t) => !answered.has(t));
        if (missing.length > 0) throw new Error(`${missing.length} messages unanswered: ${missing.slice(0, 5)}`);
      },
      { timeout: 90_000, interval: 100 },
    );
  } finally {
    process.kill(sleeper.pid as number, "SIGCONT");
  }
  // Awake, it goes on with what it had in hand: give that time to come to nothing.
  await settle(3 * leaseSeconds * 1000);
  await drained(d(), 60_000);

  const { replies, calls, strays } = countByTag(d(), tags);
  const notOnce = notExactly(tags, replies);
  report("freeze and wake", {
    messages: tags.size,
    sleeper: sleeper.name,
    inFlightAtFreeze: heldAtFreeze.size,
    replies: [...replies.values()].reduce((a, b) => a + b, 0),
    llmCalls: [...calls.values()].reduce((a, b) => a + b, 0),
  });
  if (notOnce.length > 0)
    console.log(
      storyOf(
        d(),
        notOnce.map((t) => t.split("×")[0] ?? t),
        frozenAt,
      ),
    );
  expect(notOnce, "messages not answered exactly once").toEqual([]);
  // The earlier tests' replies are at the fakes too; this test's own prefixes are #zs and #zc.
  expect(
    strays.filter((stray) => /#z[sc]\d/.test(stray)),
    "replies to nothing we sent",
  ).toEqual([]);
});
