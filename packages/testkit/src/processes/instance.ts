import { fileURLToPath } from "node:url";
import { ManagedProcess } from "./child.ts";
import { freePort } from "./free-port.ts";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

export interface RunningInstance {
  name: string;
  port: number;
  url: string;
  process: ManagedProcess;
  /** SIGTERM, SIGKILL if it lingers past 10 s; gives the exit code, null when a signal ended it. */
  stop(): Promise<number | null>;
  /** kill -9, mid-flight. */
  kill(): Promise<void>;
}

/**
 * What an instance runs: its TypeScript sources under tsx (the tests, `npm run dev`), or the build, as `npm start`
 * and the Docker image run it.
 */
export type InstanceEntry = "source" | "build";

/** node's arguments for each entry, from a checkout's root (this one's, or another's: bench:pair runs two). */
export const entryArguments: Record<InstanceEntry, readonly string[]> = {
  source: ["--conditions=source", "--import", "tsx", "apps/server/src/main.ts"],
  build: ["apps/server/dist/main.js"],
};

/**
 * Spawns one resident process from the repository root: `env` is the whole configuration (PORT included), nothing
 * is inherited but PATH and HOME. The one launcher of instances, for single ones and deployments alike.
 */
export function spawnInstance(name: string, env: Record<string, string>, entry: InstanceEntry = "source") {
  return ManagedProcess.spawn(name, process.execPath, [...entryArguments[entry]], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: "127.0.0.1",
      INSTANCE_ID: name,
      LOG_LEVEL: "warn",
      ...env,
    },
  });
}

/** Starts one resident instance on a free port and waits until it answers /healthz. */
export async function startInstance(
  name: string,
  env: Record<string, string>,
  entry: InstanceEntry = "source",
): Promise<RunningInstance> {
  const port = await freePort();
  const child = spawnInstance(name, { PORT: String(port), ...env }, entry);
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
