import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, ManagedProcess, waitForPort } from "../src/processes/index.ts";

describe("ManagedProcess and waitForPort", () => {
  it("say why at once when the server's binary is not installed, instead of crashing or waiting out the timeout", async () => {
    const missing = ManagedProcess.spawn("nginx", "resident-no-such-binary", []);
    await expect(waitForPort(await freePort(), 60_000, missing)).rejects.toThrow(
      /nginx is not running:\nnginx could not start: spawn resident-no-such-binary ENOENT/,
    );
    expect(missing.running).toBe(false);
    await missing.stop();
  });

  it("resolve once the port accepts connections while the server runs", async () => {
    const port = await freePort();
    const sleeper = ManagedProcess.spawn("sleeper", process.execPath, ["-e", "setTimeout(() => {}, 30_000)"]);
    const listener = createServer().listen(port, "127.0.0.1");
    try {
      await expect(waitForPort(port, 5_000, sleeper)).resolves.toBeUndefined();
    } finally {
      listener.close();
      await sleeper.stop();
    }
  });
});
