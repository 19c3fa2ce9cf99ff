import { connect, createServer } from "node:net";
import type { ManagedProcess } from "./child.ts";

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Starts something on a port probed free, and again on another when the start fails in a way `retryable` accepts
 * (by default any): the probed port can be taken by another process before the start binds it. At most `tries` ports.
 */
export async function startOnFreePort<T>(
  start: (port: number) => Promise<T>,
  retryable: (error: unknown) => boolean = () => true,
  tries = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= tries || !retryable(error)) throw error;
    }
  }
}

/**
 * Resolves once something accepts connections on the port, or rejects after `timeoutMs` — or at once, with its
 * output, when the `server` meant to listen there is not running (it exited, or its binary is not installed).
 */
export async function waitForPort(port: number, timeoutMs = 15_000, server?: ManagedProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server && !server.running) throw new Error(`${server.name} is not running:\n${server.log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
