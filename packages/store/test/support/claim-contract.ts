import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimStore } from "@resident/core";
import { expect, it } from "vitest";

/** A key no other test (or earlier run against the same server) uses. */
export const fresh = (kind: string) => `${kind}:ws-${randomUUID()}:${randomUUID()}`;

/** The claim semantics every ClaimStore has (memory, Redis, Redis Cluster, PostgreSQL), for use inside a describe. */
export function claimCases(store: () => ClaimStore): void {
  it("gives an absent key to the first claim and shows a duplicate who holds it", async () => {
    const key = fresh("event");
    const first = await store().claim(key, "job:1 ünïcode:owner", 10_000);
    expect(first).toMatchObject({ claimed: true, token: expect.any(String) });
    expect(await store().claim(key, "job:2", 10_000)).toEqual({
      claimed: false,
      record: { state: "in_progress", owner: "job:1 ünïcode:owner" },
    });
  });

  it("commits a value that every later claim finds, kept verbatim", async () => {
    const key = fresh("reply");
    const claim = await store().claim(key, "job:1", 10_000);
    if (!claim.claimed) throw new Error("not claimed");
    const value = 'msg:1712345.000100 "quoted"\nd:i:';
    expect(await store().commit(key, claim.token, value, 10_000)).toBe(true);
    expect(await store().claim(key, "job:2", 10_000)).toEqual({
      claimed: false,
      record: { state: "done", value },
    });
  });

  it("frees a released key for the next claim", async () => {
    const key = fresh("event");
    const claim = await store().claim(key, "a", 10_000);
    if (!claim.claimed) throw new Error("not claimed");
    expect(await store().release(key, claim.token)).toBe(true);
    expect(await store().claim(key, "b", 10_000)).toMatchObject({ claimed: true });
  });

  it("never lets a stale token extend, commit or release a claim that passed to another owner", async () => {
    const key = fresh("reply");
    const stale = await store().claim(key, "first", 10_000);
    if (!stale.claimed) throw new Error("not claimed");
    await store().release(key, stale.token);
    const current = await store().claim(key, "second", 10_000);
    if (!current.claimed) throw new Error("not claimed");

    expect(await store().extend(key, stale.token, 10_000)).toBe(false);
    expect(await store().commit(key, stale.token, "late", 10_000)).toBe(false);
    expect(await store().release(key, stale.token)).toBe(false);
    expect(await store().claim(key, "third", 10_000)).toEqual({
      claimed: false,
      record: { state: "in_progress", owner: "second" },
    });
  });

  it("refuses a second commit, an extend or a release once the work is done", async () => {
    const key = fresh("reply");
    const claim = await store().claim(key, "a", 10_000);
    if (!claim.claimed) throw new Error("not claimed");
    await store().commit(key, claim.token, "sent", 10_000);
    expect(await store().commit(key, claim.token, "again", 10_000)).toBe(false);
    expect(await store().extend(key, claim.token, 10_000)).toBe(false);
    expect(await store().release(key, claim.token)).toBe(false);
    expect(await store().claim(key, "b", 10_000)).toEqual({
      claimed: false,
      record: { state: "done", value: "sent" },
    });
  });

  it("answers false for a key nobody holds", async () => {
    const key = fresh("event");
    expect(await store().extend(key, "no-such-token", 10_000)).toBe(false);
    expect(await store().commit(key, "no-such-token", "x", 10_000)).toBe(false);
    expect(await store().release(key, "no-such-token")).toBe(false);
  });

  it("lets the next claim win once a lease lapses, and the dead owner's token is then worthless", async () => {
    const key = fresh("reply");
    const dead = await store().claim(key, "died", 100);
    if (!dead.claimed) throw new Error("not claimed");
    await sleep(300);
    const next = await store().claim(key, "next", 10_000);
    expect(next).toMatchObject({ claimed: true });
    expect(await store().commit(key, dead.token, "late", 10_000)).toBe(false);
    expect(await store().extend(key, dead.token, 10_000)).toBe(false);
  });

  it("keeps a claim whose lease was extended past its first length", async () => {
    const key = fresh("reply");
    const claim = await store().claim(key, "slow", 300);
    if (!claim.claimed) throw new Error("not claimed");
    expect(await store().extend(key, claim.token, 10_000)).toBe(true);
    await sleep(600);
    expect(await store().claim(key, "other", 10_000)).toEqual({
      claimed: false,
      record: { state: "in_progress", owner: "slow" },
    });
  });

  it("forgets a done marker after its TTL", async () => {
    const key = fresh("event");
    const claim = await store().claim(key, "a", 10_000);
    if (!claim.claimed) throw new Error("not claimed");
    await store().commit(key, claim.token, "queued", 100);
    await sleep(300);
    expect(await store().claim(key, "b", 10_000)).toMatchObject({ claimed: true });
  });

  it("settles a present key whoever holds it, for its TTL, and leaves an absent key absent", async () => {
    const key = fresh("event");
    const claim = await store().claim(key, "a", 10_000);
    if (!claim.claimed) throw new Error("not claimed");
    expect(await store().settle(key, "queued", 200)).toBe(true);
    expect(await store().claim(key, "b", 10_000)).toEqual({
      claimed: false,
      record: { state: "done", value: "queued" },
    });
    expect(await store().commit(key, claim.token, "late", 10_000)).toBe(false);
    expect(await store().settle(key, "queued", 200)).toBe(true);
    await sleep(400);
    const absent = fresh("event");
    expect(await store().settle(absent, "queued", 10_000)).toBe(false);
    expect(await store().claim(absent, "c", 10_000)).toMatchObject({ claimed: true });
    expect(await store().claim(key, "d", 10_000)).toMatchObject({ claimed: true });
  });

  it("gives one key to exactly one of 50 concurrent claims", async () => {
    const key = fresh("event");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store().claim(key, `instance-${i}`, 10_000)),
    );
    const winners = results.flatMap((result, i) => (result.claimed ? [`instance-${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (!result.claimed) expect(result.record).toEqual({ state: "in_progress", owner: winners[0] });
    }
  });

  it("journals a value once: the first written stands, is read back verbatim, and lapses after its TTL", async () => {
    const key = fresh("answer");
    const value = 'the answer: "quoted"\nd:i: ünïcode';
    expect(await store().journaled(key)).toBeUndefined();
    expect(await store().journal(key, value, 300)).toBe(value);
    expect(await store().journal(key, "a second answer", 300)).toBe(value);
    expect(await store().journaled(key)).toBe(value);
    await sleep(500);
    expect(await store().journaled(key)).toBeUndefined();
    expect(await store().journal(key, "after the TTL", 10_000)).toBe("after the TTL");
  });

  it("keeps one of 20 concurrent journals, and every writer is told which", async () => {
    const key = fresh("answer");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store().journal(key, `answer-${i}`, 10_000)),
    );
    expect(new Set(results).size).toBe(1);
    expect(await store().journaled(key)).toBe(results[0]);
  });

  it("hands a claim the values journaled beside it, read in the same step, and nothing for a key with none", async () => {
    const [reply, answer, step] = [fresh("reply"), fresh("answer"), fresh("step")];
    const first = await store().claim(reply, "job:1", 10_000, [answer, step]);
    expect(first).toEqual({ claimed: true, token: expect.any(String), journaled: {} });
    if (!first.claimed) throw new Error("not claimed");
    await store().journal(answer, 'the answer "quoted"\nd:i:', 10_000);
    await store().release(reply, first.token);
    expect(await store().claim(reply, "job:2", 10_000, [answer, step])).toEqual({
      claimed: true,
      token: expect.any(String),
      journaled: { [answer]: 'the answer "quoted"\nd:i:' },
    });
    expect(await store().claim(reply, "job:3", 10_000, [answer, step])).toEqual({
      claimed: false,
      record: { state: "in_progress", owner: "job:2" },
    });
  });

  it("releases the claim named in a commit only when the commit took", async () => {
    const [reply, sending] = [fresh("reply"), fresh("sending")];
    const claim = await store().claim(reply, "job:1", 10_000);
    const mark = await store().claim(sending, "job:1", 10_000);
    if (!claim.claimed || !mark.claimed) throw new Error("not claimed");
    expect(await store().commit(reply, "stale-token", "msg:1", 10_000, { key: sending, token: mark.token })).toBe(
      false,
    );
    expect(await store().claim(sending, "job:2", 10_000)).toMatchObject({ claimed: false });
    expect(await store().commit(reply, claim.token, "msg:1", 10_000, { key: sending, token: mark.token })).toBe(true);
    expect(await store().claim(sending, "job:2", 10_000)).toMatchObject({ claimed: true });
    expect(await store().claim(reply, "job:2", 10_000)).toEqual({
      claimed: false,
      record: { state: "done", value: "msg:1" },
    });
  });

  it("journals a value and claims another key in one step, each as journal and claim do on their own", async () => {
    const [answer, sending] = [fresh("answer"), fresh("sending")];
    const value = 'the answer "quoted"\nd:i: ünïcode';
    const first = await store().journalAndClaim({ key: answer, value, ttlMs: 10_000 }, sending, "job:1", 10_000);
    expect(first).toEqual({ journaled: value, claim: { claimed: true, token: expect.any(String) } });
    expect(
      await store().journalAndClaim({ key: answer, value: "another", ttlMs: 10_000 }, sending, "job:2", 10_000),
    ).toEqual({ journaled: value, claim: { claimed: false, record: { state: "in_progress", owner: "job:1" } } });
    if (!first.claim.claimed) throw new Error("not claimed");
    expect(await store().commit(sending, first.claim.token, "msg:1", 10_000)).toBe(true);
    expect(
      await store().journalAndClaim({ key: answer, value: "a third", ttlMs: 10_000 }, sending, "job:3", 10_000),
    ).toEqual({ journaled: value, claim: { claimed: false, record: { state: "done", value: "msg:1" } } });
    expect(await store().journaled(answer)).toBe(value);
  });

  it("gives the claim of 20 concurrent journal-and-claims to one, and tells all the one value that stands", async () => {
    const [answer, sending] = [fresh("answer"), fresh("sending")];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store().journalAndClaim({ key: answer, value: `answer-${i}`, ttlMs: 10_000 }, sending, `job:${i}`, 10_000),
      ),
    );
    expect(new Set(results.map((result) => result.journaled)).size).toBe(1);
    const winners = results.flatMap((result, i) => (result.claim.claimed ? [`job:${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const { claim } of results) {
      if (!claim.claimed) expect(claim.record).toEqual({ state: "in_progress", owner: winners[0] });
    }
  });

  it("gives each of many concurrent claims and commits on different keys its own outcome", async () => {
    const keys = Array.from({ length: 12 }, () => fresh("reply"));
    const journals = keys.map(() => fresh("answer"));
    const [held, done] = [keys[1] ?? "", keys[2] ?? ""];
    const holder = await store().claim(held, "job:holder", 10_000);
    const doer = await store().claim(done, "job:doer", 10_000);
    if (!holder.claimed || !doer.claimed) throw new Error("not claimed");
    await store().commit(done, doer.token, "msg:done", 10_000);
    await store().journal(journals[3] ?? "", "journaled-3", 10_000);
    const claims = await Promise.all(keys.map((key, i) => store().claim(key, `job:${i}`, 10_000, [journals[i] ?? ""])));
    keys.forEach((_, i) => {
      if (i === 1) expect(claims[i]).toEqual({ claimed: false, record: { state: "in_progress", owner: "job:holder" } });
      else if (i === 2) expect(claims[i]).toEqual({ claimed: false, record: { state: "done", value: "msg:done" } });
      else {
        const journaled = i === 3 ? { [journals[3] ?? ""]: "journaled-3" } : {};
        expect(claims[i]).toEqual({ claimed: true, token: expect.any(String), journaled });
      }
    });
    const tokens = claims.map((claim) => (claim.claimed ? claim.token : "not-held"));
    const commits = await Promise.all(
      keys.map((key, i) => store().commit(key, i === 4 ? "stale" : (tokens[i] ?? ""), `msg:${i}`, 10_000)),
    );
    expect(commits).toEqual(keys.map((_, i) => ![1, 2, 4].includes(i)));
    const after = await Promise.all(keys.map((key) => store().claim(key, "job:late", 10_000)));
    expect(after.map((claim) => (claim.claimed ? "claimed" : claim.record))).toEqual(
      keys.map((_, i) =>
        i === 1
          ? { state: "in_progress", owner: "job:holder" }
          : i === 2
            ? { state: "done", value: "msg:done" }
            : i === 4
              ? { state: "in_progress", owner: "job:4" }
              : { state: "done", value: `msg:${i}` },
      ),
    );
  });
}
