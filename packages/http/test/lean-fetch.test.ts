import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { connectionErrorCode } from "@resident/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leanFetch, leanFetchWithin } from "../src/lean-fetch.ts";

type Seen = { method?: string; headers: IncomingMessage["headers"]; body: string };
const seen: Seen[] = [];
let base = "";

const routes: Record<string, (res: ServerResponse) => void> = {
  "/json": (res) => {
    res.writeHead(201, "Made", [
      ["content-type", "application/json"],
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    res.end('{"ok":true}');
  },
  "/empty": (res) => res.writeHead(204).end(),
  "/nothing": (res) => res.writeHead(200).end(),
  "/silent": () => {},
  "/stalls": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"ok":');
  },
  "/cut": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": 100 });
    res.write('{"ok":', () => res.destroy());
  },
  "/moved": (res) => res.writeHead(307, { location: "/json" }).end(),
  "/events": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    // The rest only once the first event was read: a body read whole first would never resolve.
    routes["/more"] = (more) => {
      res.end("data: last\n\n");
      more.end();
    };
  },
};
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    seen.push({ method: req.method, headers: req.headers, body });
    routes[req.url ?? ""]?.(res);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("leanFetch", () => {
  it("sends the method, headers and body as fetch would, and answers with status, headers and body", async () => {
    const response = await leanFetch(`${base}/json`, {
      method: "POST",
      headers: new Headers({ authorization: "Bearer t" }),
      body: "héllo",
    });
    const request = seen.at(-1);
    expect(request).toMatchObject({ method: "POST", body: "héllo" });
    expect(request?.headers).toMatchObject({
      authorization: "Bearer t",
      "content-type": "text/plain;charset=UTF-8",
      "content-length": "6",
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/json`);
    expect(response.headers.get("set-cookie")).toBe("a=1, b=2");
    expect(await response.json()).toEqual({ ok: true });
  });

  it("lets an answer's body be read once, as a Response's, as text, bytes, a blob, a stream or a clone", async () => {
    const response = await leanFetch(`${base}/json`);
    const copy = response.clone();
    expect(await response.text()).toBe('{"ok":true}');
    expect(response.bodyUsed).toBe(true);
    await expect(response.json()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
    expect(new TextDecoder().decode(await copy.arrayBuffer())).toBe('{"ok":true}');
    const blob = await (await leanFetch(`${base}/json`)).blob();
    expect(blob.type).toBe("application/json");
    expect(await new Response((await leanFetch(`${base}/json`)).body).json()).toEqual({ ok: true });
  });

  it("makes its body's stream without reading it; a read of the stream uses the body, as a Response's", async () => {
    const taken = await leanFetch(`${base}/json`);
    expect(taken.body).toBe(taken.body);
    expect(taken.bodyUsed).toBe(false);
    expect(await taken.json()).toEqual({ ok: true });

    const streamed = await leanFetch(`${base}/json`);
    const reader = (streamed.body as ReadableStream<Uint8Array>).getReader({ mode: "byob" });
    await expect(streamed.text()).rejects.toThrow(TypeError);
    const { value } = await reader.read(new Uint8Array(64));
    expect(new TextDecoder().decode(value)).toBe('{"ok":true}');
    expect((await reader.read(new Uint8Array(64))).done).toBe(true);
    expect(streamed.bodyUsed).toBe(true);
    reader.releaseLock();
    await expect(streamed.text()).rejects.toThrow(TypeError);

    const nothing = (await leanFetch(`${base}/nothing`)).body as ReadableStream<Uint8Array>;
    expect((await nothing.getReader().read()).done).toBe(true);
  });

  it("sends headers given as a record or as pairs as fetch does: names in any case, repeats joined", async () => {
    await leanFetch(`${base}/json`, { headers: { "X-Trace": "a", "x-trace": "b", Accept: "application/json" } });
    expect(seen.at(-1)?.headers).toMatchObject({ "x-trace": "a, b", accept: "application/json" });
    await leanFetch(`${base}/json`, {
      headers: [
        ["X-Trace", "c"],
        ["X-TRACE", "d"],
      ],
    });
    expect(seen.at(-1)?.headers).toMatchObject({ "x-trace": "c, d" });
    const sent = seen.length;
    const refused = await leanFetch(`${base}/json`, { headers: { "x-bad": "a\r\nb" } }).catch((e) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect(seen.length).toBe(sent);
  });

  it("sends a form as fetch does", async () => {
    await leanFetch(`${base}/json`, { method: "POST", body: new URLSearchParams({ a: "1 2", b: "é" }) });
    expect(seen.at(-1)?.body).toBe("a=1+2&b=%C3%A9");
    expect(seen.at(-1)?.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
  });

  it("answers a 204 with no body", async () => {
    const response = await leanFetch(`${base}/empty`, { method: "POST", body: "{}" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("rejects a refused connection as fetch does, with the code in its cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await leanFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).catch((e) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect(connectionErrorCode(failure)).toBe("ECONNREFUSED");
  });

  it("rejects with the signal's reason when it aborts before the answer, and at once when already aborted", async () => {
    const failure = await leanFetch(`${base}/silent`, { method: "POST", signal: AbortSignal.timeout(50) }).catch(
      (e) => e,
    );
    expect(failure).toBeInstanceOf(DOMException);
    expect(failure.name).toBe("TimeoutError");
    const controller = new AbortController();
    controller.abort();
    const sent = seen.length;
    await expect(leanFetch(`${base}/json`, { signal: controller.signal })).rejects.toThrow(/aborted/);
    expect(seen.length).toBe(sent);
  });

  it("within a timeout, gives up on an answer that does not begin, or whose body stalls, as on a network failure", async () => {
    const within = leanFetchWithin(200);
    for (const path of ["/silent", "/stalls"]) {
      const failure = await within(`${base}${path}`, { method: "POST", body: "{}" }).catch((e) => e);
      expect(failure).toBeInstanceOf(TypeError);
      expect(connectionErrorCode(failure)).toMatch(/^UND_ERR_(HEADERS|BODY)_TIMEOUT$/);
    }
    expect(await (await within(`${base}/json`)).json()).toEqual({ ok: true });
    // What it hands to the global fetch (a Request) is held to the same time, beside the caller's own signal.
    const handed = await within(new Request(`${base}/silent`, { method: "POST", body: "{}" })).catch((e) => e);
    expect(handed.name).toBe("TimeoutError");
  });

  it("rejects a body cut short as fetch does, and one aborted while it is read with the signal's reason", async () => {
    const cut = await leanFetch(`${base}/cut`, { method: "POST", body: "{}" }).catch((e) => e);
    expect(cut).toBeInstanceOf(TypeError);
    expect(cut.message).toBe("terminated");
    const controller = new AbortController();
    const reading = leanFetch(`${base}/stalls`, { method: "POST", body: "{}", signal: controller.signal });
    await sleep(100);
    controller.abort(new Error("given up"));
    await expect(reading).rejects.toThrow("given up");
  });

  it("streams an event stream as it comes", async () => {
    const response = await leanFetch(`${base}/events`, { method: "POST", body: "{}" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    await leanFetch(`${base}/more`);
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toBe("data: last\n\n");
  });

  it("follows a redirect as fetch does, and refuses one under redirect: error", async () => {
    const followed = await leanFetch(`${base}/moved`, { method: "POST", body: "{}" });
    expect(followed.status).toBe(201);
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${base}/json`);
    expect(await followed.json()).toEqual({ ok: true });
    await expect(leanFetch(`${base}/moved`, { method: "POST", body: "{}", redirect: "error" })).rejects.toThrow(
      TypeError,
    );
  });

  it("opens a new connection once a server's Keep-Alive: timeout= hint has passed, not one the server closes", async () => {
    // A request that comes on a connection idle for longer than the server said it keeps one is dropped unanswered:
    // what a request crossing the server's close of an idle socket meets, made certain instead of a race.
    const answeredAt = new WeakMap<Socket, number>();
    const closing = createServer((req, res) => {
      const last = answeredAt.get(req.socket);
      if (last !== undefined && Date.now() - last > 1_000) return void req.socket.destroy();
      req.resume().on("end", () => {
        res.on("finish", () => answeredAt.set(req.socket, Date.now()));
        res.writeHead(200, { connection: "keep-alive", "keep-alive": "timeout=1", "content-length": 2 }).end("ok");
      });
    });
    await new Promise<void>((resolve) => closing.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closing.address() as AddressInfo).port}/`;
    try {
      expect(await (await leanFetch(url, { method: "POST", body: "{}" })).text()).toBe("ok");
      await sleep(1_200);
      expect(await (await leanFetch(url, { method: "POST", body: "{}" })).text()).toBe("ok");
    } finally {
      closing.closeAllConnections();
      closing.close();
    }
  });
});
