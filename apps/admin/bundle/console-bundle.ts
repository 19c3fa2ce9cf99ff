import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceDigest } from "./source-digest.ts";

const appDir = fileURLToPath(new URL("..", import.meta.url));
/** Written into the bundle: the digest of the sources it was built from. */
const digestFile = ".source-digest";

export interface ConsoleBundleOptions {
  /** Where the bundle lives; default apps/admin/dist. */
  outDir?: string;
  /** Told before a build starts. */
  onBuild?: () => void;
}

/**
 * The directory of a console bundle built from the current sources: the one there, or a new one built now. So
 * `npm install && npm start` and `npm test` need no build step of their own, and an edited source is never served
 * stale. Builds go to a staging directory renamed into place, so instances starting together from one tree never
 * see half a bundle; should two build at once, the first one in place stays.
 */
export async function ensureConsoleBundle(options: ConsoleBundleOptions = {}): Promise<string> {
  const outDir = options.outDir ?? join(appDir, "dist");
  const digest = await sourceDigest(appDir);
  if ((await builtFrom(outDir)) === digest) return outDir;

  options.onBuild?.();
  // Beside the bundle, so the rename stays on one filesystem; .tmp is git-ignored should a build be cut short.
  const stagingRoot = join(dirname(outDir), ".tmp");
  await mkdir(stagingRoot, { recursive: true });
  const staging = await mkdtemp(join(stagingRoot, "console-"));
  try {
    const { build } = await import("vite");
    await build({
      root: appDir,
      configFile: join(appDir, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: staging, emptyOutDir: true },
    });
    await writeFile(join(staging, digestFile), digest);
    // mkdtemp made it private to this user; a server running as another (a container's) must read it.
    await chmod(staging, 0o755);
    // Another instance may have put the same bundle in place meanwhile, and may be serving it already.
    if ((await builtFrom(outDir)) !== digest) {
      await rm(outDir, { recursive: true, force: true });
      await rename(staging, outDir).catch(async (error) => {
        if ((await builtFrom(outDir)) !== digest) throw error;
      });
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return outDir;
}

function builtFrom(outDir: string): Promise<string | undefined> {
  return readFile(join(outDir, digestFile), "utf8").catch(() => undefined);
}
