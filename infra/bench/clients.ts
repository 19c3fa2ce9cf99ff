/**
 * `npm run bench:clients`: what one outbound call costs in the instance's CPU through each client the worker uses,
 * beside node's bare http client on a keep-alive pool, against a local server that answers at once: the Slack SDK's
 * `chat.postMessage` and the Anthropic SDK's `messages.create`, each on leanFetch as the service gives them and on
 * the global fetch (undici) they default to. Also counts the TCP connections each opened: keep-alive means one per
 * concurrent call, not one per call.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
// The two SDKs come with @resident/agent and @resident/slack (the service's clients); the bench only measures them.
import Anthropic from "@anthropic-ai/sdk";
import { defaultModel } from "@resident/core";
import { leanFetch, leanFetchWithin } from "@resident/http";
import { WebClient } from "@slack/web-api";

const calls = Number(process.env.BENCH_CLIENT_CALLS ?? 4_000);
const concurrency = 16;
const slackAnswer = JSON.stringify({ ok: true, channel: "C1", ts: "1712345.000100", message: { text: "hi" } });
const anthropicAnswer = JSON.stringify({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: defaultModel,
  content: [{ type: "text", text: "the office opens at nine" }],
  stop_reason: "end_turn",
  usage: { input_tokens: 12, output_tokens: 8 },
});

let connections = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const body = req.url?.startsWith("/v1/messages") ? anthropicAnswer : slackAnswer;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.on("connection", () => connections++);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;

const agent = new Agent({ keepAlive: true });
const bare = (path: string, body: string) =>
  new Promise<void>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", agent, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          JSON.parse(Buffer.concat(chunks).toString("utf8"));
          resolve();
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
// Each SDK set up as the service sets it up (packages/slack/src/api.ts, packages/agent/src/anthropic-agent.ts): the
// Slack call within 10 s (leanFetchWithin's timers, or the client's own on the global fetch), the Anthropic call under
// the answer's lease signal.
const slackTimeoutMs = 10_000;
const slack = (fetch: typeof globalThis.fetch) =>
  new WebClient("xoxb-bench", {
    slackApiUrl: `${base}/api/`,
    retryConfig: { retries: 0 },
    ...(fetch === globalThis.fetch
      ? { timeout: slackTimeoutMs, fetch: fetch as never }
      : { timeout: 0, fetch: leanFetchWithin(slackTimeoutMs) as never }),
  });
const anthropic = (fetch: typeof globalThis.fetch) =>
  new Anthropic({ apiKey: "sk-ant-bench", baseURL: base, maxRetries: 0, timeout: 60_000, fetch });
const question = { model: defaultModel, max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] };
const post = (client: WebClient) => () => client.chat.postMessage({ channel: "C1", text: "hi", thread_ts: "1.2" });
const ask = (client: Anthropic) => () => client.messages.create(question, { signal: new AbortController().signal });
const call = (fetch: typeof globalThis.fetch) => () =>
  fetch(`${base}/v1/messages`, { method: "POST", body: "{}" }).then((r) => r.json());

const clients: [string, () => Promise<unknown>][] = [
  ["node http, keep-alive (the floor)", () => bare("/api/chat.postMessage", JSON.stringify({ channel: "C1" }))],
  ["@slack/web-api chat.postMessage", post(slack(leanFetch))],
  ["  the same on the global fetch", post(slack(fetch))],
  ["@anthropic-ai/sdk messages.create", ask(anthropic(leanFetch))],
  ["  the same on the global fetch", ask(anthropic(fetch))],
  ["leanFetch alone", call(leanFetch)],
  ["the global fetch (undici) alone", call(fetch)],
];

/** CPU µs per call, after a warm-up of a quarter as many calls. */
async function measure(call: () => Promise<unknown>): Promise<{ us: number; opened: number }> {
  const run = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) await call();
      }),
    );
  };
  await run(calls / 4);
  const opened = connections;
  const before = process.cpuUsage();
  await run(calls);
  const used = process.cpuUsage(before);
  return { us: (used.user + used.system) / calls, opened: connections - opened };
}

process.stdout.write(
  `Outbound clients: CPU µs per call in this process (the answering server included, the same for all), ${calls} calls, ${concurrency} at a time\n`,
);
let floor = 0;
for (const [name, call] of clients) {
  const { us, opened } = await measure(call);
  if (floor === 0) floor = us;
  process.stdout.write(
    `  ${name.padEnd(40)} ${us.toFixed(0).padStart(6)} µs   ${`+${(us - floor).toFixed(0)}`.padStart(6)} µs over the floor   ${opened} new connections\n`,
  );
}
agent.destroy();
server.closeAllConnections();
server.close();
