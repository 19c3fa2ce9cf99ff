import { afterEach, describe, expect, it } from "vitest";
import { FakeChatwork, type FakeChatworkOptions } from "../src/chatwork/index.ts";

const bot = { apiToken: "fake-bot-token", accountId: 100, name: "bot" };
const room = 555;

describe("FakeChatwork", () => {
  const fakes: FakeChatwork[] = [];
  const start = async (options: Partial<FakeChatworkOptions> = {}) => {
    const fake = await new FakeChatwork({
      accounts: [bot],
      rooms: [{ roomId: room, type: "group" }],
      ...options,
    }).start();
    fakes.push(fake);
    return fake;
  };
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });

  const call = (fake: FakeChatwork, path: string, init: { body?: string; token?: string } = {}) =>
    fetch(`${fake.apiUrl}${path}`, {
      method: init.body === undefined ? "GET" : "POST",
      headers: { "x-chatworktoken": init.token ?? bot.apiToken },
      body: init.body === undefined ? undefined : new URLSearchParams({ body: init.body }),
    });

  it("answers /me for a known token and 401 with Chatwork's error shape otherwise", async () => {
    const fake = await start();
    expect(await (await call(fake, "/me")).json()).toMatchObject({ account_id: 100, name: "bot" });
    const refused = await call(fake, "/me", { token: "nope" });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ errors: ["Invalid API token"] });
  });

  it("records posts in order of arrival and answers each with a long digit-string message id", async () => {
    const fake = await start();
    const ids: string[] = [];
    for (const body of ["one", "two", "three"]) {
      const answer = (await (await call(fake, `/rooms/${room}/messages`, { body })).json()) as { message_id: string };
      ids.push(answer.message_id);
    }
    expect(fake.posts.map((post) => post.body)).toEqual(["one", "two", "three"]);
    expect(fake.posts.map((post) => post.messageId)).toEqual(ids);
    expect(ids.every((id) => /^\d{19}$/.test(id))).toBe(true);
    expect(fake.replies()).toEqual(["one", "two", "three"].map((text) => ({ conversationId: String(room), text })));
  });

  it("sends x-ratelimit-* headers with every answer and answers 429 beyond 10 posts in 10 s per room", async () => {
    const fake = await start();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      last = await call(fake, `/rooms/${room}/messages`, { body: `m${i}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(fake.rateLimited).toBe(1);
    expect(fake.posts).toHaveLength(10);
    expect(last?.headers.get("x-ratelimit-limit")).toBe("300");
    expect(last?.headers.get("x-ratelimit-remaining")).toBe("289");
    const reset = Number(last?.headers.get("x-ratelimit-reset"));
    expect(reset * 1000).toBeGreaterThan(Date.now() + 4 * 60_000);
  });

  it("answers 429 once a token has spent its requests, with remaining 0 and the reset", async () => {
    const fake = await start({ perToken: { limit: 3, windowMs: 60_000 } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(fake, "/me"));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers[2]?.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await answers[3]?.json()).toEqual({ errors: ["Rate limit exceeded"] });
    expect(fake.rateLimited).toBe(1);
  });

  it("lists the latest 100 messages with force=1, and only unread ones (or 204) without it", async () => {
    const fake = await start();
    for (let i = 0; i < 120; i++) fake.addMessage({ roomId: room, accountId: 7, body: `m${i}` });
    const unread = await call(fake, `/rooms/${room}/messages`);
    expect(unread.status).toBe(200);
    expect(await unread.json()).toHaveLength(120);
    expect((await call(fake, `/rooms/${room}/messages`)).status).toBe(204);
    const forced = (await (await call(fake, `/rooms/${room}/messages?force=1`)).json()) as { body: string }[];
    expect(forced).toHaveLength(100);
    expect(forced[0]?.body).toBe("m20");
    expect(forced.at(-1)?.body).toBe("m119");
  });

  it("fails a post without posting, and accepts a post and then answers too late", async () => {
    const fake = await start();
    fake.failPosts(room, 503);
    expect((await call(fake, `/rooms/${room}/messages`, { body: "lost" })).status).toBe(503);
    expect(fake.posts).toHaveLength(0);

    fake.acceptPostsThenTimeOut(room, 5_000);
    const timedOut = await fetch(`${fake.apiUrl}/rooms/${room}/messages`, {
      method: "POST",
      headers: { "x-chatworktoken": bot.apiToken },
      body: new URLSearchParams({ body: "landed" }),
      signal: AbortSignal.timeout(300),
    }).catch((error: Error) => error.name);
    expect(timedOut).toBe("TimeoutError");
    expect(fake.posts.map((post) => post.body)).toEqual(["landed"]);
  });

  it("answers 404 for a room it does not know, and for paths it does not serve", async () => {
    const fake = await start();
    expect((await call(fake, "/rooms/1/messages", { body: "x" })).status).toBe(404);
    expect((await call(fake, "/rooms/1/tasks")).status).toBe(404);
  });
});
