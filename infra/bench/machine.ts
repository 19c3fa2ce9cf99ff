import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { cpus, loadavg, release, totalmem } from "node:os";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  nginx: string;
  redis: string;
  autocannon: string;
  date: string;
  loadAtStart: string;
}

/** What the figures were measured on: a benchmark number means nothing without it. */
export async function describeMachine(): Promise<Machine> {
  const cpuInfo = await readFile("/proc/cpuinfo", "utf8").catch(() => "");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuInfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const hypervisor = /^flags\s*:.*\bhypervisor\b/m.test(cpuInfo) ? " (virtual machine)" : "";
  const nginx = await run("nginx", ["-v"]).then(
    ({ stdout, stderr }) => /nginx\/(\S+)/.exec(stderr + stdout)?.[1] ?? "?",
    () => "not found",
  );
  const redis = await run("redis-server", ["--version"]).then(
    ({ stdout }) => /v=(\S+)/.exec(stdout)?.[1] ?? "?",
    () => "not found",
  );
  const autocannon = await readFile(new URL("../../node_modules/autocannon/package.json", import.meta.url), "utf8")
    .then((text) => (JSON.parse(text) as { version: string }).version)
    .catch(() => "?");
  return {
    cpu: `${model.trim()}${hypervisor}`,
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: `Linux ${release()}`,
    node: process.version,
    nginx,
    redis,
    autocannon,
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    loadAtStart: loadavg()
      .map((n) => n.toFixed(2))
      .join(" "),
  };
}
