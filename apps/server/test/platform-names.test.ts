import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
/** The one file outside the platform packages that may name a platform: the server's list of them. */
const theList = "apps/server/src/platforms.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe("platforms are data", () => {
  it("no file of core or the server names a platform, except the server's list", () => {
    const files = [...sourceFiles("packages/core/src"), ...sourceFiles("apps/server/src")];
    expect(files.length).toBeGreaterThan(20);
    const naming = files.filter(
      (file) => file !== theList && /slack|teams|chatwork/i.test(readFileSync(join(root, file), "utf8")),
    );
    expect(naming).toEqual([]);
    expect(readFileSync(join(root, theList), "utf8")).toMatch(/slack/i);
  });
});
