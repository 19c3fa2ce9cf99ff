import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ManagedProcess } from "./child.ts";
import { freePort, waitForPort } from "./free-port.ts";

const template = fileURLToPath(new URL("../../../../infra/nginx/nginx.template.conf", import.meta.url));

export interface RunningNginx {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts Debian's nginx on a free loopback port in front of the given upstream ports, from infra's template. */
export async function startNginx(upstreamPorts: number[]): Promise<RunningNginx> {
  const prefix = await mkdtemp(join(tmpdir(), "resident-nginx-"));
  for (const dir of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) await mkdir(join(prefix, dir));
  const port = await freePort();
  const config = (await readFile(template, "utf8"))
    .replaceAll("{{user}}", process.getuid?.() === 0 ? "user root;" : "")
    .replaceAll("{{prefix}}", prefix)
    .replaceAll("{{port}}", String(port))
    .replaceAll(
      "{{servers}}",
      upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join("\n"),
    );
  const file = join(prefix, "nginx.conf");
  await writeFile(file, config);
  const nginx = ManagedProcess.spawn("nginx", "nginx", ["-p", prefix, "-c", file, "-g", "daemon off;"]);
  await waitForPort(port, 15_000, nginx);
  return {
    url: `http://127.0.0.1:${port}`,
    process: nginx,
    async stop() {
      await nginx.stop("SIGQUIT");
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
