import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeServer } from "../src/fake-server.ts";

describe("FakeServer", () => {
  let done = 0;
  const fake = new FakeServer({
    "POST /work": (call) => {
      done++;
      return { status: 200, body: { echo: call.body } };
    },
  });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());

  const post = (body: unknown) =>
    fetch(`${fake.url}/work?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("records calls and answers through the route", async () => {
    const res = await post({ a: 1 });
    expect(await res.json()).toEqual({ echo: { a: 1 } });
    expect(fake.callsTo("POST /work").at(-1)).toMatchObject({ body: { a: 1 }, status: 200 });
    expect(fake.calls.at(-1)?.query.get("x")).toBe("1");
  });

  it("uses up a fault per call, answering without doing the work", async () => {
    const before = done;
    fake.fault("POST /work", { respond: { status: 429, headers: { "retry-after": "2" } } }, 1);
    const limited = await post({});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(done).toBe(before);
    expect((await post({})).status).toBe(200);
    expect(done).toBe(before + 1);
  });

  it("does the work before a delayed answer", async () => {
    const before = done;
    fake.fault("POST /work", { delayAnswerMs: 5_000 }, 1);
    const answer = post({}).catch(() => "closed");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(before + 1);
    fake.clearFaults();
    void answer;
  });

  it("answers 404 for an unknown route", async () => {
    const res = await fetch(`${fake.url}/nope`);
    expect(res.status).toBe(404);
  });
});

describe("FakeServer routes with :params", () => {
  const fake = new FakeServer({
    "GET /items/:id": (call) => ({ status: 200, body: call.params }),
    "POST /items/:id/parts/:part": (call) => ({ status: 201, body: call.params }),
  });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());

  it("hands the decoded path parameters to the handler and answers 404 elsewhere", async () => {
    expect(await (await fetch(`${fake.url}/items/a%3Ab%40c`)).json()).toEqual({ id: "a:b@c" });
    const created = await fetch(`${fake.url}/items/1/parts/2`, { method: "POST" });
    expect([created.status, await created.json()]).toEqual([201, { id: "1", part: "2" }]);
    expect((await fetch(`${fake.url}/items/1/extra`)).status).toBe(404);
    expect((await fetch(`${fake.url}/items/1`, { method: "DELETE" })).status).toBe(404);
  });

  it("keeps faults on the concrete route", async () => {
    fake.fault("GET /items/7", { respond: { status: 503 } }, 1);
    expect((await fetch(`${fake.url}/items/8`)).status).toBe(200);
    expect((await fetch(`${fake.url}/items/7`)).status).toBe(503);
    expect((await fetch(`${fake.url}/items/7`)).status).toBe(200);
  });
});
