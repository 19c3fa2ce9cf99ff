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

/** What the processes run: the bare route, or the floor (the ack's necessary work alone) with its settings. */
export type BaselineServer = { kind: "bare" } | { kind: "floor"; redisUrl: string; signingSecret: string };

/**
 * N processes of baseline-server.mjs (the bare route) or floor-server.mjs (the floor), under node alone as the
 * service's build is, behind one nginx.
 */
export async function startBaseline(instances: number, server: BaselineServer = { kind: "bare" }): Promise<Baseline> {
  const file = server.kind === "bare" ? "infra/bench/baseline-server.mjs" : "infra/bench/floor-server.mjs";
  const settings = server.kind === "bare" ? {} : { REDIS_URL: server.redisUrl, SIGNING_SECRET: server.signingSecret };
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
      const child = ManagedProcess.spawn(`${server.kind}-${i + 1}`, process.execPath, [file], {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...settings },
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

/** Waits until `child` answers its health check on `port`; throws, with its log, if it exits or takes too long. */
export async function untilAnswering(child: ManagedProcess, port: number, timeoutMs = 30_000): Promise<void> {
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
