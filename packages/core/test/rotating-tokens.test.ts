import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { PermanentSendError, SendRejectedError } from "../src/errors.ts";
import { MemoryCredentialStore } from "../src/memory/credential-store.ts";
import type { Workspace } from "../src/ports/tenant-directory.ts";
import { RotatingTokens, type TokenRotation } from "../src/rotating-tokens.ts";
import { resolveSettings } from "../src/settings.ts";

interface Creds {
  token: string;
  refreshToken?: string;
  expiresAt?: number;
}

/** A platform whose refresh tokens are honoured once, as Slack's are; it counts every refresh asked of it. */
function platform() {
  let issued = 0;
  const live = new Set(["r0"]);
  const calls: string[] = [];
  let failNext: Error | undefined;
  const rotation: TokenRotation<Creds> = {
    token: (c) => ({ value: c.token, expiresAt: c.expiresAt, refreshable: c.refreshToken !== undefined }),
    async refresh(c) {
      calls.push(c.refreshToken ?? "");
      await sleep(20);
      if (failNext) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      if (!c.refreshToken || !live.delete(c.refreshToken)) {
        throw new PermanentSendError("Slack refused the token refresh: invalid_refresh_token");
      }
      issued++;
      live.add(`r${issued}`);
      return { token: `t${issued}`, refreshToken: `r${issued}`, expiresAt: Date.now() + 12 * 3_600_000 };
    },
  };
  return { rotation, calls, fail: (error: Error) => (failNext = error) };
}

function workspace(credentials: Creds): Workspace<Creds> {
  return {
    id: "ws-1",
    tenantId: "t-1",
    platform: "slack",
    name: "w",
    credentials,
    settings: resolveSettings({}, "closed"),
    identity: {},
  };
}

const nearExpiry = (): Creds => ({ token: "t0", refreshToken: "r0", expiresAt: Date.now() + 60_000 });

/** Three instances: each its own RotatingTokens over the one shared store. */
function cluster(initial: Creds) {
  const store = new MemoryCredentialStore().set("ws-1", initial);
  const fake = platform();
  const instances = [0, 1, 2].map(() => new RotatingTokens({ store, rotation: fake.rotation }));
  return { store, fake, instances };
}

describe("RotatingTokens", () => {
  it("20 concurrent callers on 3 instances as the token nears expiry: one refresh, every caller gets the new token", async () => {
    const { store, fake, instances } = cluster(nearExpiry());
    // Every caller holds the workspace as read before the refresh, as a cache would.
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => instances[i % 3]?.token(workspace(nearExpiry())) ?? ""),
    );
    console.log(`[rotation, 20 callers, 3 instances] refreshes=${fake.calls.length} tokens=${new Set(tokens).size}`);
    expect(fake.calls).toEqual(["r0"]);
    expect(new Set(tokens)).toEqual(new Set(["t1"]));
    expect(store.get<Creds>("ws-1")).toMatchObject({ token: "t1", refreshToken: "r1" });
    // Callers still holding the stale workspace get the new token without asking again.
    expect(await instances[2]?.token(workspace(nearExpiry()))).toBe("t1");
    expect(fake.calls).toHaveLength(1);
  });

  it("a token with more than the margin left, or one that does not expire, is used as it is", async () => {
    const { fake, instances } = cluster(nearExpiry());
    const far = { token: "t0", refreshToken: "r0", expiresAt: Date.now() + 3_600_000 };
    expect(await instances[0]?.token(workspace(far))).toBe("t0");
    expect(await instances[0]?.token(workspace({ token: "xoxb-plain" }))).toBe("xoxb-plain");
    expect(fake.calls).toEqual([]);
  });

  it("the margin is the caller's to choose", async () => {
    const { store, fake } = cluster(nearExpiry());
    const tokens = new RotatingTokens({ store, rotation: fake.rotation, marginMs: 30_000 });
    expect(await tokens.token(workspace(nearExpiry()))).toBe("t0");
    expect(fake.calls).toEqual([]);
  });

  it("a token refused before its time on 3 instances at once: one refresh, each retries with the new token", async () => {
    const far = (): Creds => ({ token: "t0", refreshToken: "r0", expiresAt: Date.now() + 3_600_000 });
    const { fake, instances } = cluster(far());
    const retries = await Promise.all(
      Array.from({ length: 9 }, (_, i) => instances[i % 3]?.refused(workspace(far()), "t0")),
    );
    expect(fake.calls).toEqual(["r0"]);
    expect(new Set(retries)).toEqual(new Set(["t1"]));
    // A refusal of a token another caller has already replaced asks for nothing.
    expect(await instances[1]?.refused(workspace(far()), "t0")).toBe("t1");
    expect(fake.calls).toHaveLength(1);
  });

  it("a refused token that cannot be refreshed has no retry", async () => {
    const { fake, instances } = cluster({ token: "xoxb-plain" });
    expect(await instances[0]?.refused(workspace({ token: "xoxb-plain" }), "xoxb-plain")).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  it("a refresh the platform refuses reaches every waiting caller and stores nothing", async () => {
    const { store, fake, instances } = cluster({ token: "t0", refreshToken: "spent", expiresAt: Date.now() + 1_000 });
    const stale = () => workspace({ token: "t0", refreshToken: "spent", expiresAt: Date.now() + 1_000 });
    const outcomes = await Promise.allSettled(instances.map((tokens) => tokens.token(stale())));
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(PermanentSendError);
    }
    expect(store.get<Creds>("ws-1")).toMatchObject({ token: "t0", refreshToken: "spent" });
    // Each instance learns of the refusal by its own try, one after another under the lock; none succeeds.
    expect(fake.calls).toEqual(["spent", "spent", "spent"]);
  });

  it("a refresh that could not reach the platform stores nothing, the token still working is used, the next caller refreshes once", async () => {
    const { store, fake, instances } = cluster(nearExpiry());
    fake.fail(new SendRejectedError("could not connect to Slack"));
    expect(await instances[0]?.token(workspace(nearExpiry()))).toBe("t0");
    expect(store.get<Creds>("ws-1")?.token).toBe("t0");
    const tokens = await Promise.all(instances.map((tokens) => tokens.token(workspace(nearExpiry()))));
    expect(new Set(tokens)).toEqual(new Set(["t1"]));
    expect(fake.calls).toEqual(["r0", "r0"]);
  });

  it("a token already expired whose refresh could not reach the platform fails the call, to be retried", async () => {
    const expired = (): Creds => ({ token: "t0", refreshToken: "r0", expiresAt: Date.now() - 1_000 });
    const { fake, instances } = cluster(expired());
    fake.fail(new SendRejectedError("could not connect to Slack"));
    await expect(instances[0]?.token(workspace(expired()))).rejects.toBeInstanceOf(SendRejectedError);
  });

  it("credentials changed since a refresh (an admin's new token) are taken as they are", async () => {
    const { instances } = cluster(nearExpiry());
    expect(await instances[0]?.token(workspace(nearExpiry()))).toBe("t1");
    expect(await instances[0]?.token(workspace({ token: "xoxb-pasted" }))).toBe("xoxb-pasted");
  });
});
