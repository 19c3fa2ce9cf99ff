import { settle } from "@resident/testkit";
import { seededRandom } from "@resident/testkit/deployment";
import { PostgresServer } from "@resident/testkit/processes";
import { appMention, twinOf } from "@resident/testkit/slack";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import {
  countByTag,
  drained,
  firePaced,
  notExactly,
  percentiles,
  question,
  type Scheduled,
} from "./support/messages.ts";

/*
 * PostgreSQL — a private server this test starts and stops, not the machine's — goes away for 30 s in the middle
 * of a storm on workspaces every instance already knows. Their webhooks keep being acked (the directory answers
 * from its last reading, past its TTL; Redis takes the deliveries in), the answers wait in the queue for the reply
 * ledger to come back, and every message is answered exactly once. Meanwhile a workspace no instance has seen gets
 * 503 (not 404: it may well exist), and so does the admin API, with a message that says why; all heals without a
 * restart.
 *
 * Each job has two attempts here (JOB_ATTEMPTS), so that the answers are seen to wait past any attempt limit: a job
 * that fails because the ledger's database is away is retried until it is back. With the shipped eight, an outage
 * longer than their backoff (1–2 min) lost the jobs it had failed eight times; with two, this one lost 47 of 60.
 */

const messages = 60;
const outageMs = 30_000;
const leadMs = 4_000;
const stormMs = leadMs + outageMs + 8_000;

let database: PostgresServer;
beforeAll(async () => {
  database = await PostgresServer.start();
}, 60_000);
afterAll(() => database?.dispose());

const d = useDeployment(() => ({
  instances: 2,
  platforms: ["slack"],
  databaseUrl: database.url,
  env: { JOB_ATTEMPTS: "2" },
}));

it("keeps answering known workspaces exactly once while PostgreSQL is stopped, and heals by itself", {
  timeout: 240_000,
}, async () => {
  const random = seededRandom(Date.now() % 1_000_000);
  const known = await d().connectSlack();
  const unseen = await d().connectSlack();
  /** Everything sent that may be answered, beyond the storm: warm-ups, the unseen workspace's messages. */
  const others = new Set<string>();
  const tagged = (prefix: string) => {
    const { tag, text } = question(prefix);
    others.add(tag);
    return text;
  };
  for (const instance of d().instances) {
    expect((await known.send(appMention(known.bot, tagged("pw")), {}, instance.url)).status).toBe(200);
  }
  await drained(d());

  const tags = new Set<string>();
  const schedule: Scheduled[] = [];
  for (let i = 0; i < messages; i++) {
    const { tag, text } = question("pg");
    tags.add(tag);
    const mention = appMention(known.bot, text);
    for (const body of [mention, twinOf(mention)]) {
      schedule.push({ at: Math.floor(random() * stormMs), deliver: () => known.send(body) });
    }
  }
  const firing = firePaced(schedule, 32);
  await settle(leadMs);
  await database.stop();
  const stoppedAt = Date.now();

  // While it is away: a workspace never seen cannot be looked up (503, not 404), nor can the admin API answer.
  const unseenDuring = await unseen.send(appMention(unseen.bot, tagged("pu")));
  const adminDuring = await fetch(`${d().url}/admin/api/tenants/${known.tenantId}/workspaces`, {
    headers: { authorization: `Bearer ${d().adminToken}` },
  });
  const adminBody = (await adminDuring.json()) as { error?: string };
  await settle(Math.max(0, outageMs - (Date.now() - stoppedAt)));
  await database.restart();

  const fired = await firing;
  await vi.waitFor(() => expect(notExactly(tags, countByTag(d(), tags).replies, 1)).toEqual([]), {
    timeout: 120_000,
    interval: 250,
  });
  const unseenAfter = await vi.waitFor(
    async () => {
      const response = await unseen.send(appMention(unseen.bot, tagged("pu")));
      expect(response.status).toBe(200);
      return response.status;
    },
    { timeout: 20_000, interval: 50 },
  );
  const adminAfter = (
    await fetch(`${d().url}/admin/api/tenants/${known.tenantId}/workspaces`, {
      headers: { authorization: `Bearer ${d().adminToken}` },
    })
  ).status;
  await drained(d(), 90_000);
  await settle(2_000);

  const { replies, calls, strays } = countByTag(d(), new Set([...tags, ...others]));
  const nonOk = fired.latencies.filter((l) => l.status < 200 || l.status >= 300);
  report("postgres outage", {
    outageMs,
    messages: tags.size,
    deliveries: schedule.length,
    non2xx: nonOk.length,
    replies: [...tags].reduce((n, t) => n + (replies.get(t) ?? 0), 0),
    llmCalls: [...tags].reduce((n, t) => n + (calls.get(t) ?? 0), 0),
    ackMs: percentiles(fired.latencies.map((l) => l.ms)),
    unseenWorkspaceDuring: unseenDuring.status,
    adminApiDuring: adminDuring.status,
    adminApiSaid: adminBody.error,
    unseenWorkspaceAfter: unseenAfter,
    adminApiAfter: adminAfter,
  });

  expect(
    nonOk.map((l) => l.status),
    "deliveries of known workspaces not acked 2xx",
  ).toEqual([]);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
  expect(unseenDuring.status, "an uncached workspace while the database is away").toBe(503);
  expect(adminDuring.status).toBe(503);
  expect(adminBody.error).toMatch(/database .* cannot be reached/);
  expect(adminAfter).toBe(200);
});
