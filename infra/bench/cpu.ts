import { readdir, readFile } from "node:fs/promises";

const ticksPerSecond = 100; // USER_HZ on Linux

interface ProcStat {
  pid: number;
  ppid: number;
  cpuS: number;
}

async function readStat(pid: number): Promise<ProcStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (!text) return undefined;
  // The command name is in parentheses and may hold spaces; the fields after it are space-separated.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // utime and stime, then cutime and cstime: the children it has waited for. Without them a child that ends between
  // two samples (Redis' AOF rewrite, a fork) takes its CPU with it, and the sample after it counts less than before.
  const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return { pid, ppid: Number(fields[1]), cpuS: ticks / ticksPerSecond };
}

/** One process's CPU milliseconds so far, with its waited-for children's (as readStat counts them). */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await readStat(pid);
  if (!stat) throw new Error(`no process ${pid} to read CPU of`);
  return stat.cpuS * 1000;
}

/** Pid groups to account CPU to; each group counts its pids and their descendants (nginx's workers). */
export type CpuGroups = Record<string, number[]>;

export interface CpuSample {
  at: number;
  /** Busy CPU seconds of the whole machine (all cores, every process, the kernel), from /proc/stat. */
  machine: number;
  /** This process alone (the load generator and the fakes). */
  self: number;
  groups: Record<string, number>;
}

export async function sampleCpu(groups: CpuGroups): Promise<CpuSample> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  const stats = (await Promise.all(pids.map(readStat))).filter((s): s is ProcStat => s !== undefined);
  const children = new Map<number, number[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  const byPid = new Map(stats.map((stat) => [stat.pid, stat.cpuS]));
  const result: Record<string, number> = {};
  for (const [group, roots] of Object.entries(groups)) {
    const seen = new Set<number>();
    const visit = (pid: number): number => {
      if (seen.has(pid)) return 0;
      seen.add(pid);
      return (byPid.get(pid) ?? 0) + (children.get(pid) ?? []).reduce((sum, child) => sum + visit(child), 0);
    };
    result[group] = roots.reduce((sum, pid) => sum + visit(pid), 0);
  }
  const usage = process.cpuUsage();
  return {
    at: performance.now(),
    machine: await machineBusySeconds(),
    self: (usage.user + usage.system) / 1e6,
    groups: result,
  };
}

async function machineBusySeconds(): Promise<number> {
  const text = await readFile("/proc/stat", "utf8");
  const fields = (text.split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is all but idle and iowait
  return (fields.reduce((a, b) => a + b, 0) - (fields[3] ?? 0) - (fields[4] ?? 0)) / ticksPerSecond;
}

/** CPU seconds spent between two samples: per group, this process, and the rest of the machine. */
export interface CpuUse {
  wallS: number;
  groups: Record<string, number>;
  self: number;
  /** Everything else busy meanwhile: other processes on the machine (other people's builds and tests), the kernel. */
  other: number;
  machine: number;
}

export function cpuUse(before: CpuSample, after: CpuSample): CpuUse {
  const groups = Object.fromEntries(
    Object.entries(after.groups).map(([group, s]) => [group, s - (before.groups[group] ?? 0)]),
  );
  const self = after.self - before.self;
  const machine = after.machine - before.machine;
  const ours = Object.values(groups).reduce((a, b) => a + b, 0) + self;
  return { wallS: (after.at - before.at) / 1000, groups, self, other: Math.max(0, machine - ours), machine };
}
