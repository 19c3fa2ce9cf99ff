import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureConsoleBundle } from "../bundle/console-bundle.ts";

describe("the console bundle", () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), "resident-console-"));
  });
  afterAll(() => rm(parent, { recursive: true, force: true }));

  it("is built when missing, whole even when two instances build it at once, and then reused", async () => {
    const outDir = join(parent, "together");
    let builds = 0;
    const onBuild = () => builds++;
    const dirs = await Promise.all([
      ensureConsoleBundle({ outDir, onBuild }),
      ensureConsoleBundle({ outDir, onBuild }),
    ]);
    expect(dirs).toEqual([outDir, outDir]);
    expect(builds).toBe(2);
    const index = await readFile(join(outDir, "index.html"), "utf8");
    const script = /<script type="module" crossorigin src="\/admin\/assets\/([^"]+\.js)">/.exec(index)?.[1];
    expect(await readdir(join(outDir, "assets"))).toContain(script);

    await ensureConsoleBundle({ outDir, onBuild });
    expect(builds).toBe(2);
    expect(await readdir(join(parent, ".tmp"))).toEqual([]);
  }, 60_000);

  it("is built again when its sources changed since", async () => {
    const outDir = join(parent, "stale");
    await ensureConsoleBundle({ outDir });
    await writeFile(join(outDir, ".source-digest"), "built from older sources");
    let rebuilt = false;
    await ensureConsoleBundle({ outDir, onBuild: () => (rebuilt = true) });
    expect(rebuilt).toBe(true);
    expect(await readFile(join(outDir, ".source-digest"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
  }, 60_000);
});
