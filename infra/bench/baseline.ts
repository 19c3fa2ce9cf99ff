import { fileURLToPath } from "node:url";
import { freePort, ManagedProcess, type RunningNginx, startNginx } from "@resident/testkit/processes";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Everything this file started and has not stopped: killed by pid when the bench process exits, however it exits. */
const live = new Set<ManagedProcess>();
process.once("exit", () => {
  for (const child of live) {
    try {
      if (child.running) process.kill(child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

export interface Baseline {
  url: string;
  ports: number[];
  /** The fastify processes' pids. */
  pids: number[];
  /** nginx's master (its workers are its children). */
  nginxPid: number;
  close(): Promise<void>;
}

/** N bare fastify processes (baseline-server.mjs, under node alone as the service's build is) behind one nginx. */
export async function startBaseline(instances: number): Promise<Baseline> {
  const processes: ManagedProcess[] = [];
  let nginx: RunningNginx | undefined;
  const close = async () => {
    if (nginx) {
      await nginx.process.stop("SIGQUIT", 3_000).catch(() => {});
      live.delete(nginx.process);
    }
    await Promise.all(
      processes.map(async (child) => {
        await child.stop("SIGTERM", 3_000).catch(() => {});
        live.delete(child);
      }),
    );
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < instances; i++) {
      const port = await freePort();
      const child = ManagedProcess.spawn(`baseline-${i + 1}`, process.execPath, ["infra/bench/baseline-server.mjs"], {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
      });
      live.add(child);
      processes.push(child);
      ports.push(port);
    }
    await Promise.all(processes.map((child, i) => untilAnswering(child, ports[i] as number)));
    nginx = await startNginx(ports);
    live.add(nginx.process);
    return { url: nginx.url, ports, pids: processes.map((child) => child.pid), nginxPid: nginx.process.pid, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function untilAnswering(child: ManagedProcess, port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!child.running) throw new Error(`${child.name} exited during start-up:\n${child.log()}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.name} did not answer within ${timeoutMs} ms:\n${child.log()}`);
}
