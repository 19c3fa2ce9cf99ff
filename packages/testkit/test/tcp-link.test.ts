import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TcpLink } from "../src/processes/index.ts";
import { settle } from "../src/settle.ts";

/** A server that records what each connection sent and echoes it back. */
async function echoServer(): Promise<{ server: Server; port: number; received: () => string }> {
  let received = "";
  const server = createServer((socket) =>
    socket.on("data", (chunk) => {
      received += chunk.toString();
      socket.write(chunk);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { server, port: address.port, received: () => received };
}

async function client(port: number): Promise<{ socket: Socket; echoed: () => string }> {
  let echoed = "";
  const socket = connect(port, "127.0.0.1");
  socket.on("data", (chunk) => {
    echoed += chunk.toString();
  });
  await new Promise((resolve) => socket.once("connect", resolve));
  return { socket, echoed: () => echoed };
}

describe("TcpLink", () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  const started = async () => {
    const echo = await echoServer();
    const link = await TcpLink.start(echo.port);
    closers.push(() => new Promise((resolve) => echo.server.close(resolve)));
    closers.push(() => link.close());
    return { echo, link };
  };

  it("relays both ways while whole, and names the target's URL through itself", async () => {
    const { echo, link } = await started();
    expect(link.through(`redis://127.0.0.1:${echo.port}`)).toBe(`redis://127.0.0.1:${link.port}`);
    const c = await client(link.port);
    closers.push(() => c.socket.destroy());
    c.socket.write("ping");
    await expect.poll(c.echoed).toBe("ping");
    expect(echo.received()).toBe("ping");
  });

  it("holds what either side sends while cut, new connections' too, and delivers it in order once healed", async () => {
    const { echo, link } = await started();
    const before = await client(link.port);
    closers.push(() => before.socket.destroy());
    link.partition();
    before.socket.write("a1 ");
    const during = await client(link.port);
    closers.push(() => during.socket.destroy());
    during.socket.write("b1 ");
    before.socket.write("a2 ");
    await settle(300);
    expect([echo.received(), before.echoed(), during.echoed()]).toEqual(["", "", ""]);

    link.heal();
    await expect.poll(before.echoed).toBe("a1 a2 ");
    await expect.poll(during.echoed).toBe("b1 ");
  });

  it("still delivers, once healed, what a client sent before it gave up and closed its socket", async () => {
    const { echo, link } = await started();
    const c = await client(link.port);
    link.partition();
    await new Promise((resolve) => c.socket.write("late command", resolve));
    c.socket.destroy();
    await settle(200);
    expect(echo.received()).toBe("");

    link.heal();
    await expect.poll(echo.received).toBe("late command");
  });
});
