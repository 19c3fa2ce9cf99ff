import { randomBytes } from "node:crypto";
import { RedisServer } from "@resident/testkit/processes";
import { connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/** A request with a bearer token, and an X-Forwarded-For as a proxy — or anyone — may write it. */
const signIn = (baseUrl: string, token: string, forwardedFor?: string) =>
  fetch(`${baseUrl}/admin/api/tenants`, {
    headers: { authorization: `Bearer ${token}`, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
  });
/** A wrong token, each with a start of its own. */
const guess = () => `rsd_${randomBytes(32).toString("base64url")}`;

describe("without TRUSTED_PROXIES: the client address is the socket's", () => {
  let s: InProcessService;
  beforeEach(async () => {
    s = await startInProcessService();
  });
  afterEach(() => s?.close());

  it("slows a guesser down whatever X-Forwarded-For it writes, and logs the socket's address", async () => {
    const statuses = [];
    for (let i = 0; i < 15; i++) statuses.push((await signIn(s.url, guess(), `203.0.113.${i + 1}`)).status);
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    const logged = s.logs.filter((line) => line.includes('"remoteAddress"'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.some((line) => line.includes("203.0.113."))).toBe(false);
  });

  it("lets nobody lock out the address they write, nor the one they come from: a valid token gets in", async () => {
    for (let i = 0; i < 10; i++) await signIn(s.url, guess(), "198.51.100.9");
    const admin = await signIn(s.url, s.operator.token, "198.51.100.9");
    expect(admin.status).toBe(200);
    expect(Number(admin.headers.get("x-sign-in-slowed"))).toBeGreaterThan(0);
    expect((await signIn(s.url, guess())).status).toBe(429);
  });
});

describe("with TRUSTED_PROXIES: the client address is the one the proxy saw", () => {
  let s: InProcessService;
  let a: SlackWorkspace;
  beforeAll(async () => {
    s = await startInProcessService({ TRUSTED_PROXIES: "127.0.0.1" });
    a = await connectSlackWorkspace(s.url, s.operator, s.slack);
  });
  afterAll(() => s?.close());

  it("slows an address after ten failures, and still lets the right operator and tenant tokens in", async () => {
    const attacker = "203.0.113.7";
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await signIn(s.url, guess(), attacker)).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    const refused = await signIn(s.url, guess(), attacker);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error).toMatch(/slowed down/);
    for (const token of [s.operator.token, a.tenantToken]) {
      const answer = await signIn(s.url, token, attacker);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-sign-in-slowed")).not.toBeNull();
    }
    const elsewhere = await signIn(s.url, a.tenantToken, "198.51.100.21");
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("x-sign-in-slowed")).toBeNull();
  });

  it("counts the rightmost address nginx appended, whatever a client wrote in front of it", async () => {
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await signIn(s.url, guess(), `10.0.0.${i}, 203.0.113.50`)).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });

  it("slows guesses aimed at one token's start from many addresses, and still lets that token in", async () => {
    const start = a.tenantToken.slice(0, 12);
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await signIn(s.url, `${start}${"y".repeat(31)}${i}`, `192.0.2.${i + 1}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const admin = await signIn(s.url, a.tenantToken, "192.0.2.200");
    expect(admin.status).toBe(200);
    expect(admin.headers.get("x-sign-in-slowed")).not.toBeNull();
  });

  it("never counts a valid token's requests", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => signIn(s.url, s.operator.token, "198.51.100.20")),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
    expect(answers.every((answer) => answer.headers.get("x-sign-in-slowed") === null)).toBe(true);
  });
});

describe("failed sign-ins across instances", () => {
  let redis: RedisServer;
  let instances: InProcessService[] = [];
  beforeAll(async () => {
    redis = await RedisServer.start();
    const env = { REDIS_URL: redis.url, TRUSTED_PROXIES: "127.0.0.1" };
    instances = await Promise.all([1, 2].map(() => startInProcessService(env)));
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await redis?.dispose();
  });

  it("are counted together by every instance sharing Redis", async () => {
    const [one, two] = instances as [InProcessService, InProcessService];
    const attacker = "203.0.113.99";
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await signIn([one, two][i % 2]?.url ?? "", guess(), attacker)).status);
    expect(statuses).toEqual(Array(10).fill(401));
    expect((await signIn(one.url, guess(), attacker)).status).toBe(429);
    expect((await signIn(two.url, guess(), attacker)).status).toBe(429);
    expect((await signIn(two.url, two.operator.token, "198.51.100.99")).status).toBe(200);
  });
});
