import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** What the bundle is built from; a change to any of it means the bundle is stale. */
const consoleSources = ["index.html", "vite.config.ts", "public", "src", "../../packages/admin-api/src"];

/** A SHA-256 over the path and bytes of every source file, in a stable order. */
export async function sourceDigest(appDir: string): Promise<string> {
  const hash = createHash("sha256");
  const files = (await Promise.all(consoleSources.map((source) => filesUnder(join(appDir, source))))).flat().sort();
  for (const file of files) {
    hash.update(`${relative(appDir, file)}\0`);
    hash.update(await readFile(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return [path];
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? filesUnder(join(path, entry.name)) : [join(path, entry.name)])),
  );
  return nested.flat();
}
