/**
 * The open-loop pacer's own process (forked by load.ts's `Pacer`): it receives one run's prepared requests over IPC,
 * paces them and sends the result back. A fresh process with a small heap, so the bench's records and fakes (and
 * their GC pauses) are not on the pacer's event loop.
 */
import { type OpenLoopOptions, paceOpenLoop } from "./open-loop.ts";

interface RunMessage {
  baseUrl: string;
  requests: { path: string; headers: Record<string, string>; body: Uint8Array }[];
  options: OpenLoopOptions;
}

process.on("message", (message: RunMessage) => {
  const requests = message.requests.map((r) => ({ ...r, body: Buffer.from(r.body) }));
  paceOpenLoop(message.baseUrl, requests, message.options).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: true });
