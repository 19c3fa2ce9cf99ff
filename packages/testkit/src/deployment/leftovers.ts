import type { ManagedProcess } from "../processes/child.ts";

/*
 * Processes a deployment started and has not stopped yet. Whatever a test leaves behind (a failing one, or one whose
 * hooks vitest gave up on) is killed by pid when the test process ends: on exit, or on the SIGTERM vitest sends.
 * processes/redis.ts does the same for its redis-servers.
 */

const live = new Set<ManagedProcess>();

export function track(process: ManagedProcess): void {
  live.add(process);
}

export function untrack(process: ManagedProcess): void {
  live.delete(process);
}

function killLeftovers(): void {
  for (const child of live) {
    if (!child.running) continue;
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // Gone between the check and the kill.
    }
  }
  live.clear();
}

process.once("exit", killLeftovers);
process.once("SIGTERM", () => {
  killLeftovers();
  // Then terminate as the signal meant to, unless another handler is still to run and will.
  if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM");
});
