import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type {
  ChangeFeed,
  ClaimStore,
  ConversationMemory,
  RateLimiter,
  SharedCache,
  StatCounter,
  StatPoint,
  StatRange,
  StatsStore,
  UsageMeter,
} from "@resident/core";
import { emptyCounts, tokenUsageKey } from "@resident/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bucketStart } from "../../src/stats-series.ts";
import { claimCases, fresh } from "./claim-contract.ts";

export interface StoreBackend {
  claims: ClaimStore;
  memory: ConversationMemory;
  stats: StatsStore;
  limiter: RateLimiter;
  usage: UsageMeter;
  cache: SharedCache;
  /** Two instances' views of one feed: what one publishes, the other hears. */
  feeds: [ChangeFeed, ChangeFeed];
  close(): Promise<void>;
}

/**
 * The semantics every backend of the shared-state ports has, written once and run against memory, Redis and
 * Redis Cluster. Times are real: leases and TTLs are short and the waits leave wide margins.
 */
export function storeContract(name: string, setup: () => Promise<StoreBackend>): void {
  describe(`${name}: store contract`, () => {
    let backend: StoreBackend;
    beforeAll(async () => {
      backend = await setup();
    });
    afterAll(() => backend?.close());

    describe("claims", () => claimCases(() => backend.claims));

    describe("conversation memory", () => {
      const turn = (i: number) => ({ role: i % 2 === 0 ? ("user" as const) : ("assistant" as const), text: `t${i}` });

      it("keeps the last `keep` turns in order and returns the last `limit`", async () => {
        const key = fresh("conversation");
        await backend.memory.append(key, [turn(0), turn(1), turn(2)], 4, 10_000);
        await backend.memory.append(key, [turn(3), turn(4), turn(5)], 4, 10_000);
        expect(await backend.memory.recent(key, 10)).toEqual([turn(2), turn(3), turn(4), turn(5)]);
        expect(await backend.memory.recent(key, 2)).toEqual([turn(4), turn(5)]);
      });

      it("keeps each thread's turns when many threads, and one thread twice, are appended to at once", async () => {
        const keys = Array.from({ length: 5 }, () => fresh("conversation"));
        const [first] = keys as [string];
        await Promise.all([
          ...keys.map((key, i) => backend.memory.append(key, [turn(i), turn(i + 1)], 3, 10_000)),
          backend.memory.append(first, [turn(7), turn(8)], 3, 10_000),
        ]);
        expect(await backend.memory.recent(first, 10)).toEqual([turn(1), turn(7), turn(8)]);
        for (const [i, key] of keys.entries()) {
          if (i > 0) expect(await backend.memory.recent(key, 10)).toEqual([turn(i), turn(i + 1)]);
        }
      });

      it("keeps any text verbatim", async () => {
        const key = fresh("conversation");
        const odd = { role: "user" as const, text: 'line 1\nline 2 "quoted" ✓ {"json":true}' };
        await backend.memory.append(key, [odd], 10, 10_000);
        expect(await backend.memory.recent(key, 10)).toEqual([odd]);
      });

      it("has nothing for an unknown thread, or for one whose TTL lapsed", async () => {
        const key = fresh("conversation");
        expect(await backend.memory.recent(key, 10)).toEqual([]);
        await backend.memory.append(key, [turn(0)], 10, 100);
        await sleep(300);
        expect(await backend.memory.recent(key, 10)).toEqual([]);
      });
    });

    describe("stats", () => {
      it("sums increments per workspace, tenant by tenant", async () => {
        const [tenant, other] = [`t-${randomUUID()}`, `t-${randomUUID()}`];
        await backend.stats.add([
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 2, llmTokens: 100 } },
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 1, replies: 1 } },
          { tenantId: tenant, workspaceId: "ws-b", counts: { duplicateEvents: 3 } },
          { tenantId: other, workspaceId: "ws-c", counts: { failures: 1 } },
        ]);
        await backend.stats.add([{ tenantId: tenant, workspaceId: "ws-b", counts: { duplicateReplies: 1 } }]);

        expect(await backend.stats.read(tenant)).toEqual({
          "ws-a": { ...emptyCounts(), events: 3, replies: 1, llmTokens: 100 },
          "ws-b": { ...emptyCounts(), duplicateEvents: 3, duplicateReplies: 1 },
        });
        expect(await backend.stats.read(other)).toEqual({ "ws-c": { ...emptyCounts(), failures: 1 } });
        expect(await backend.stats.read(`t-${randomUUID()}`)).toEqual({});
      });

      it("keeps the newest moment of each activity, whichever instance flushes first", async () => {
        const tenant = `t-${randomUUID()}`;
        const t = Date.now() - 60_000;
        const newerError = { at: t + 2_500, stage: "send" as const, message: "Slack refused: channel_not_found" };
        await backend.stats.add([
          {
            tenantId: tenant,
            workspaceId: "ws-a",
            counts: { events: 1, failures: 1 },
            activity: { lastEventAt: t + 2_000, lastError: newerError },
          },
          { tenantId: tenant, workspaceId: "ws-b", counts: { events: 1 } },
        ]);
        await backend.stats.add([
          {
            tenantId: tenant,
            workspaceId: "ws-a",
            counts: { events: 1, replies: 1, failures: 1 },
            activity: {
              lastEventAt: t + 1_000,
              lastReplyAt: t + 3_000,
              lastError: { at: t + 1_500, stage: "agent", message: "an older failure" },
            },
          },
        ]);

        expect(await backend.stats.activity(tenant)).toEqual({
          "ws-a": { lastEventAt: t + 2_000, lastReplyAt: t + 3_000, lastError: newerError },
          "ws-b": {},
        });
        expect(await backend.stats.activity(`t-${randomUUID()}`)).toEqual({});
      });

      it("draws the last hour by the minute and the last day by the hour, bucketed by when counts were taken", async () => {
        const [tenant, other] = [`t-${randomUUID()}`, `t-${randomUUID()}`];
        const before = Date.now();
        const minutesAgo = (m: number) => before - m * 60_000;
        await backend.stats.add([
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 2, duplicateEvents: 1 }, at: before },
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 1, replies: 1 }, at: minutesAgo(30) },
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 5 }, at: minutesAgo(180) },
          { tenantId: tenant, workspaceId: "ws-a", counts: { events: 7 }, at: minutesAgo(2 * 24 * 60) },
          { tenantId: tenant, workspaceId: "ws-b", counts: { events: 11 }, at: before },
          { tenantId: other, workspaceId: "ws-a", counts: { events: 13 }, at: before },
        ]);
        const hour = await backend.stats.series(tenant, "ws-a", "hour");
        const day = await backend.stats.series(tenant, "ws-a", "day");
        const after = Date.now();

        const sum = (points: StatPoint[], counter: StatCounter) => points.reduce((n, p) => n + p.counts[counter], 0);
        const bucketOf = (points: StatPoint[], at: number, range: StatRange) =>
          points.find((point) => point.at === bucketStart(at, range))?.counts;
        for (const [points, range, length, width] of [
          [hour, "hour", 60, 60_000],
          [day, "day", 24, 3_600_000],
        ] as const) {
          expect(points).toHaveLength(length);
          expect(points.slice(1).every((point, i) => point.at - (points[i] as StatPoint).at === width)).toBe(true);
          const last = points.at(-1) as StatPoint;
          expect(last.at).toBeLessThanOrEqual(after);
          expect(last.at + width).toBeGreaterThan(before);
          expect(bucketOf(points, minutesAgo(30), range)).toMatchObject({ replies: 1 });
        }
        expect(bucketOf(hour, minutesAgo(30), "hour")).toEqual({ ...emptyCounts(), events: 1, replies: 1 });
        expect(bucketOf(hour, before, "hour")).toEqual({ ...emptyCounts(), events: 2, duplicateEvents: 1 });
        expect(sum(hour, "events")).toBe(3);
        expect(bucketOf(day, minutesAgo(180), "day")).toEqual({ ...emptyCounts(), events: 5 });
        expect(sum(day, "events")).toBe(8);
        expect(sum(await backend.stats.series(tenant, "ws-quiet", "hour"), "events")).toBe(0);
        expect(sum(await backend.stats.series(other, "ws-b", "day"), "events")).toBe(0);
      });
    });

    describe("rate limiter", () => {
      it("takes up to `limit` slots in a window, then tells how long until the oldest leaves", async () => {
        const window = { key: fresh("rate"), limit: 2, windowMs: 5_000 };
        expect(await backend.limiter.take([window])).toBe(0);
        expect(await backend.limiter.take([window])).toBe(0);
        const wait = await backend.limiter.take([window]);
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(5_000);
      });

      it("takes a slot in every window of a take, or in none", async () => {
        const tight = { key: fresh("rate"), limit: 1, windowMs: 5_000 };
        const loose = { key: fresh("rate"), limit: 3, windowMs: 5_000 };
        expect(await backend.limiter.take([tight, loose])).toBe(0);
        expect(await backend.limiter.take([tight, loose])).toBeGreaterThan(0);
        // The refused take left nothing in `loose`: two more slots remain there, not one.
        expect(await backend.limiter.take([loose])).toBe(0);
        expect(await backend.limiter.take([loose])).toBe(0);
        expect(await backend.limiter.take([loose])).toBeGreaterThan(0);
      });

      it("gives a slot again once the window has slid past the oldest", async () => {
        const window = { key: fresh("rate"), limit: 1, windowMs: 200 };
        expect(await backend.limiter.take([window])).toBe(0);
        const wait = await backend.limiter.take([window]);
        expect(wait).toBeGreaterThan(0);
        await sleep(wait + 100);
        expect(await backend.limiter.take([window])).toBe(0);
      });

      it("counts concurrent takes exactly", async () => {
        const window = { key: fresh("rate"), limit: 5, windowMs: 10_000 };
        const waits = await Promise.all(Array.from({ length: 20 }, () => backend.limiter.take([window])));
        expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
      });
    });

    describe("usage meter", () => {
      it("adds every instance's counts to one total per key, in one call for a tenant's keys", async () => {
        const tenant = fresh("tn");
        const [day, workspace] = [tokenUsageKey("2026-12-01", tenant), tokenUsageKey("2026-12-01", tenant, "ws_1")];
        await Promise.all(
          Array.from({ length: 10 }, () =>
            backend.usage.add(
              [
                { key: day, by: 7 },
                { key: workspace, by: 3 },
              ],
              10_000,
            ),
          ),
        );
        expect(await backend.usage.read([day, workspace, tokenUsageKey("2026-12-02", tenant)])).toEqual([70, 30, 0]);
      });

      it("forgets a count after its TTL", async () => {
        const key = tokenUsageKey("2026-12-01", fresh("tn"));
        await backend.usage.add([{ key, by: 5 }], 200);
        await sleep(400);
        expect(await backend.usage.read([key])).toEqual([0]);
      });
    });

    describe("shared cache", () => {
      it("keeps a value verbatim until its TTL lapses", async () => {
        const key = fresh("thread");
        const value = JSON.stringify([{ id: "1.0", text: 'line\n"quoted" ✓' }]);
        expect(await backend.cache.get(key)).toBeUndefined();
        await backend.cache.set(key, value, 300);
        expect(await backend.cache.get(key)).toBe(value);
        await sleep(500);
        expect(await backend.cache.get(key)).toBeUndefined();
      });
    });

    describe("change feed", () => {
      it("tells the other instances which workspace changed, until they unsubscribe", async () => {
        const [publisher, listener] = backend.feeds;
        const heardByKept: string[] = [];
        const heardByGone: string[] = [];
        const keep = listener.subscribe((id) => heardByKept.push(id));
        const gone = listener.subscribe((id) => heardByGone.push(id));
        // Subscribing takes a round trip on Redis; publish until the subscription is in place.
        await vi.waitFor(async () => {
          await publisher.publish("ws-1");
          expect(heardByGone).toContain("ws-1");
        });
        gone();
        await vi.waitFor(async () => {
          await publisher.publish("ws-2");
          expect(heardByKept).toContain("ws-2");
        });
        expect(heardByGone).not.toContain("ws-2");
        keep();
      });
    });
  });
}
