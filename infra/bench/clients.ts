/**
 * `npm run bench:clients`: what one outbound call costs in the instance's CPU through each client the worker uses,
 * beside node's bare http client on a keep-alive pool, against a local server that answers at once: the Slack SDK's
 * `chat.postMessage` and the Anthropic SDK's `messages.create`, each on leanFetch as the service gives them and on
 * the global fetch (undici) they default to. Also counts the TCP connections each opened: keep-alive means one per
 * concurrent call, not one per call.
 *
 * The clients take turns in one process, as in the service, where both SDKs run side by side: all are warmed first,
 * then each runs a slice of its calls in every round. Measured one after another, each ran on code V8 had shaped for
 * the ones before it (the Anthropic SDK read 370 µs a call after the Slack rows, 244 alone), and the machine's speed
 * moved between the rows. The calls carry what the service's carry: an answer with its feedback buttons and reply
 * metadata, a system prompt marked for caching.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
// The two SDKs come with @resident/agent and @resident/slack (the service's clients); the bench only measures them.
import Anthropic from "@anthropic-ai/sdk";
import { defaultModel } from "@resident/core";
import { leanFetch, leanFetchWithin } from "@resident/http";
import { answerBlocks } from "@resident/slack";
import { WebClient } from "@slack/web-api";

const calls = Number(process.env.BENCH_CLIENT_CALLS ?? 4_000);
const rounds = Number(process.env.BENCH_CLIENT_ROUNDS ?? 8);
const concurrency = 16;

const text = "The office opens at nine on weekdays and at ten on Saturdays; it is closed on Sundays.";
// The answer as the service posts it (packages/slack/src/send.ts): its blocks and the reply key it is stamped with.
const blocks = answerBlocks(text);
const metadata = {
  event_type: "resident_reply",
  event_payload: { reply_key: "slack:T1:C1:1712345.000100", source_event: "Ev0123456789" },
};
const slackAnswer = JSON.stringify({
  ok: true,
  channel: "C1",
  ts: "1712345.000200",
  message: { type: "message", user: "U0BOT", bot_id: "B1", app_id: "A1", text, ts: "1712345.000200", blocks, metadata },
});
const question = {
  model: defaultModel,
  max_tokens: 1024,
  system: [{ type: "text" as const, text: "You are the front desk.", cache_control: { type: "ephemeral" as const } }],
  messages: [{ role: "user" as const, content: "When does the office open?" }],
};
const anthropicAnswer = JSON.stringify({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: defaultModel,
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 24, output_tokens: 22, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
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
// Longer than a round, so that a client's sockets are still open when its turn comes again.
server.keepAliveTimeout = 60_000;
server.on("connection", () => connections++);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;
const body = JSON.stringify(question);

const agent = new Agent({ keepAlive: true });
const bare = () =>
  new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/messages",
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
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
// the answer's lease signal. The transports alone send the Anthropic call's JSON.
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
  new Anthropic({ apiKey: "sk-ant-bench", baseURL: base, maxRetries: 0, timeout: 60_000, fetch, logLevel: "warn" });
const post = (client: WebClient) => () =>
  client.chat.postMessage({ channel: "C1", thread_ts: "1712345.000100", text, blocks, unfurl_links: false, metadata });
const ask = (client: Anthropic) => () => client.messages.create(question, { signal: new AbortController().signal });
const call = (fetch: typeof globalThis.fetch) => () =>
  fetch(`${base}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) =>
    r.json(),
  );

const clients: [string, () => Promise<unknown>][] = [
  ["node http, keep-alive (the floor)", bare],
  ["@slack/web-api chat.postMessage", post(slack(leanFetch))],
  ["  the same on the global fetch", post(slack(fetch))],
  ["@anthropic-ai/sdk messages.create", ask(anthropic(leanFetch))],
  ["  the same on the global fetch", ask(anthropic(fetch))],
  ["leanFetch alone", call(leanFetch)],
  ["the global fetch (undici) alone", call(fetch)],
];

/** `n` calls, `concurrency` at a time: the CPU µs they took and the connections they opened. */
async function run(call: () => Promise<unknown>, n: number): Promise<{ us: number; opened: number }> {
  const opened = connections;
  const before = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) await call();
    }),
  );
  const used = process.cpuUsage(before);
  return { us: used.user + used.system, opened: connections - opened };
}

for (const [, call] of clients) await run(call, calls / 4);
const slice = Math.ceil(calls / rounds);
const rows = clients.map(([name, call]) => ({ name, call, us: 0, opened: 0 }));
for (let round = 0; round < rounds; round++) {
  for (const row of rows) {
    const { us, opened } = await run(row.call, slice);
    row.us += us;
    row.opened += opened;
  }
}
process.stdout.write(
  `Outbound clients: CPU µs per call in this process (the answering server included; the Slack rows' answer echoes the posted blocks, as Slack's does), ${slice * rounds} calls each in ${rounds} rounds taken in turn, ${concurrency} at a time\n`,
);
const floor = (rows[0]?.us ?? 0) / (slice * rounds);
for (const { name, us, opened } of rows) {
  const perCall = us / (slice * rounds);
  process.stdout.write(
    `  ${name.padEnd(40)} ${perCall.toFixed(0).padStart(6)} µs   ${`+${(perCall - floor).toFixed(0)}`.padStart(6)} µs over the floor   ${opened} new connections\n`,
  );
}
agent.destroy();
server.closeAllConnections();
server.close();
