import type { FeedbackClick } from "@resident/core";
import { MemoryChangeFeed } from "@resident/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenants, openDatabase, type Principal, type Tenants } from "../src/index.ts";
import { backends, captureLogger, type Location, newSecretKey, platforms, slackCredentials } from "./helpers.ts";

const operator: Principal = { role: "operator" };
const day = Date.UTC(2026, 11, 1, 12);
const hour = 3_600_000;

describe.each(backends)("$name: the votes on answers (migration 008)", (backend) => {
  let location: Location;
  let tenants: Tenants;
  let workspaceId: string;

  beforeAll(async () => {
    location = await backend.fresh();
    const { logger } = captureLogger();
    tenants = await createTenants(await openDatabase({ ...location, logger }), {
      ...location,
      secretKey: newSecretKey(),
      logger,
      changeFeed: new MemoryChangeFeed(),
      platforms,
    });
    const tenant = await tenants.registry.createTenant(operator, { name: "Acme" });
    workspaceId = (
      await tenants.registry.createWorkspace(operator, tenant.id, {
        platform: "slack",
        name: "support",
        credentials: slackCredentials(),
      })
    ).id;
  });
  afterAll(async () => {
    await tenants?.close();
    await location?.dispose();
  });

  const click = (overrides: Partial<FeedbackClick>): FeedbackClick => ({
    platform: "slack",
    tenantId: "tn_x",
    workspaceId,
    messageId: "C1:1.000001",
    userId: "U1",
    vote: "positive",
    clickId: String(overrides.clickedAt ?? day),
    clickedAt: day,
    ...overrides,
  });

  it("keeps one vote per person and answer: the same click again, at once or late, changes nothing", async () => {
    const once = click({ messageId: "C1:a" });
    const kept = await Promise.all([1, 2, 3, 4].map(() => tenants.feedback.record(once)));
    expect(kept.filter(Boolean)).toHaveLength(1);
    expect(await tenants.feedback.record(once)).toBe(false);
    const [today] = await tenants.feedback.daily(workspaceId, 1, day);
    expect(today).toEqual({ day: "2026-12-01", positive: 1, negative: 0 });
  });

  it("moves a changed vote, ignores an older click arriving late, and counts each vote on its own UTC day", async () => {
    const answer = { messageId: "C1:b", userId: "U2" };
    expect(await tenants.feedback.record(click({ ...answer, vote: "positive", clickedAt: day - 24 * hour }))).toBe(
      true,
    );
    expect(await tenants.feedback.record(click({ ...answer, vote: "negative", clickedAt: day + hour }))).toBe(true);
    expect(await tenants.feedback.record(click({ ...answer, vote: "positive", clickedAt: day }))).toBe(false);
    await tenants.feedback.record(
      click({ messageId: "C1:c", userId: "U3", vote: "negative", clickedAt: day - 48 * hour }),
    );
    expect(await tenants.feedback.daily(workspaceId, 3, day)).toEqual([
      { day: "2026-11-29", positive: 0, negative: 1 },
      { day: "2026-11-30", positive: 0, negative: 0 },
      { day: "2026-12-01", positive: 1, negative: 1 },
    ]);
    // Another workspace's days are its own.
    expect(await tenants.feedback.daily("ws_other", 1, day)).toEqual([{ day: "2026-12-01", positive: 0, negative: 0 }]);
  });
});
