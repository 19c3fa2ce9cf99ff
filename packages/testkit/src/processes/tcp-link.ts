import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A loopback TCP relay to one port that a test can cut: a network partition between the clients that connect
 * through it and a server every other client still reaches. While cut, the relay reads nothing from either side —
 * bytes wait in the kernel's socket buffers, as TCP's retransmissions hold them on a real network — and new
 * connections are accepted but carry nothing. Once healed, everything held flows on in order, a client's last
 * commands included when it gave up on them and closed its socket: the server still runs them, late.
 *
 * By hand: toxiproxy, the usual tool for this, is in neither registry this project reaches.
 */
export class TcpLink {
  private readonly sockets = new Set<Socket>();
  private isCut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port, relaying each connection to `targetPort` on 127.0.0.1. */
  static async start(targetPort: number): Promise<TcpLink> {
    const server = createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const link = new TcpLink(server, address.port);
    server.on("connection", (client) => link.relay(client, connect(targetPort, "127.0.0.1")));
    return link;
  }

  /** The same URL with the link's port in place of the target's, e.g. `redis://127.0.0.1:<link>`. */
  through(url: string): string {
    const parsed = new URL(url);
    parsed.port = String(this.port);
    return parsed.toString().replace(/\/$/, "");
  }

  /** Nothing crosses the link from now on, either way; connections stay open. */
  partition(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.pause();
  }

  /** What was held crosses, and everything after it. */
  heal(): void {
    this.isCut = false;
    for (const socket of this.sockets) socket.resume();
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket, upstream: Socket): void {
    const pair = [client, upstream] as const;
    for (const [from, to] of [pair, [upstream, client] as const]) {
      this.sockets.add(from);
      from.on("data", (chunk) => to.write(chunk));
      // An end is passed on after what was written before it; only a broken connection breaks the other.
      from.on("end", () => to.end());
      from.on("error", () => to.destroy());
      from.on("close", () => this.sockets.delete(from));
      if (this.isCut) from.pause();
      else from.resume();
    }
  }
}
