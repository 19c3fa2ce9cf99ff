import { once } from "node:events";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { openMonitor } from "../monitor.ts";

/**
 * A Redis stand-in that answers MONITOR the way a busy Redis can: its OK and the first monitored command in one
 * write — the read that ioredis' own `monitor()` cannot take. Every other command gets OK (INFO a ready server).
 */
function busyRedis(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (chunk) => {
      for (const command of chunk.toString().matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
        const name = command[1]?.toLowerCase();
        if (name === "monitor") {
          socket.write('+OK\r\n+1796617777.477496 [0 127.0.0.1:59156] "ping"\r\n');
          setTimeout(() => socket.write('+1796617777.5 [0 127.0.0.1:59157] "get" "rsd:message:w:k"\r\n'), 50);
        } else if (name === "info") {
          const info = "# Server\r\nloading:0\r\n";
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else {
          socket.write("+OK\r\n");
        }
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, sockets })),
  );
}

describe("openMonitor", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setUp() {
    const fake = await busyRedis();
    const client = new Redis({ port: fake.port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    cleanups.push(() => {
      for (const socket of fake.sockets) socket.destroy();
      return new Promise((resolve) => fake.server.close(resolve));
    });
    return { fake, client };
  }

  it("reproduces the race: ioredis' monitor() rejects when a command shares a read with MONITOR's OK", async () => {
    const { client } = await setUp();
    await expect(client.monitor()).rejects.toThrow(/Command queue state error/);
  });

  it("opens the connection through that race and hands on the commands after it", async () => {
    const { fake, client } = await setUp();
    const connection = await openMonitor(client);
    cleanups.unshift(() => connection.disconnect());
    const [, args, source] = await once(connection, "monitor");
    expect(args).toEqual(["get", "rsd:message:w:k"]);
    expect(source).toBe("127.0.0.1:59157");
    connection.disconnect();
    await expect.poll(() => fake.sockets.size).toBe(0);
  });
});
