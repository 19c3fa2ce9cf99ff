import { fileURLToPath } from "node:url";
import { ManagedProcess } from "./child.ts";
import { freePort } from "./free-port.ts";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

export interface RunningInstance {
  name: string;
  port: number;
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
  /** kill -9, mid-flight. */
  kill(): Promise<void>;
}

/**
 * Starts one resident instance as its own process (`npm start`'s entry under tsx) and waits until it is ready.
 * `env` is the whole configuration; nothing is inherited but PATH and HOME.
 */
export async function startInstance(name: string, env: Record<string, string>): Promise<RunningInstance> {
  const port = await freePort();
  const child = ManagedProcess.spawn(name, process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: "127.0.0.1",
      PORT: String(port),
      INSTANCE_ID: name,
      LOG_LEVEL: "warn",
      ...env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, child);
  return { name, port, url, process: child, stop: () => child.stop(), kill: () => child.kill() };
}

async function waitUntilReady(url: string, child: ManagedProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!child.running) throw new Error(`${child.name} exited during start-up:\n${child.log()}`);
    const ready = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await child.stop();
  throw new Error(`${child.name} not ready after ${timeoutMs} ms:\n${child.log()}`);
}
