import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CredentialCipher,
  InvalidSecretKeyError,
  loadSecretKey,
  UnreadableCiphertextError,
  WrongSecretKeyError,
} from "../src/index.ts";
import { captureLogger, slackCredentials } from "./helpers.ts";

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "resident-key-"));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the secret key", () => {
  const load = async (secretKey?: string, dataDir?: string, salt = "salt-of-this-database") => {
    const { logger, lines } = captureLogger();
    const passphraseSalt = async () => salt;
    const key = await loadSecretKey({ secretKey, dataDir: dataDir ?? (await tempDir()), logger, passphraseSalt });
    return { key, lines };
  };

  it("takes a 32-byte key written in hex, base64 or base64url as the key itself", async () => {
    const raw = randomBytes(32);
    for (const written of [raw.toString("hex"), raw.toString("base64"), raw.toString("base64url")]) {
      const { key, lines } = await load(written);
      expect(key.equals(raw)).toBe(true);
      expect(lines).toEqual([]);
    }
  });

  it("derives a key from a passphrase and its salt, the same one every time", async () => {
    const passphrase = "correct horse battery staple";
    const [one, two, other, salted] = await Promise.all([
      load(passphrase),
      load(passphrase),
      load(`${passphrase}!`),
      load(passphrase, undefined, "another database's salt"),
    ]);
    expect(one.key).toHaveLength(32);
    expect(one.key.equals(two.key)).toBe(true);
    expect(one.key.equals(other.key)).toBe(false);
    expect(one.key.equals(salted.key)).toBe(false);
  });

  it("refuses a short passphrase without repeating it", async () => {
    const attempt = load("hunter2");
    await expect(attempt).rejects.toBeInstanceOf(InvalidSecretKeyError);
    await expect(attempt).rejects.not.toThrow("hunter2");
  });

  it("without SECRET_KEY, generates one key file (0600) even when instances start together, and warns", async () => {
    const dataDir = await tempDir();
    const loads = await Promise.all(Array.from({ length: 5 }, () => load(undefined, dataDir)));
    for (const { key } of loads) expect(key.equals(loads[0]?.key as Buffer)).toBe(true);
    expect(await readdir(dataDir)).toEqual(["secret.key"]);
    expect((await stat(join(dataDir, "secret.key"))).mode & 0o777).toBe(0o600);

    const { key, lines } = await load(undefined, dataDir);
    expect(key.equals(loads[0]?.key as Buffer)).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"level":"warn"');
    expect(lines[0]).toContain("SECRET_KEY");
    expect(lines[0]).not.toContain(key.toString("base64"));
  });

  it("refuses a key file that does not hold a key", async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, "secret.key"), "not a key\n");
    await expect(load(undefined, dataDir)).rejects.toBeInstanceOf(InvalidSecretKeyError);
  });
});

describe("the credential cipher", () => {
  const cipher = new CredentialCipher(randomBytes(32));
  const credentials = slackCredentials();

  it("opens what it sealed, with a fresh IV every time", () => {
    const sealed = cipher.seal(credentials, "workspace:ws_1");
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(sealed).not.toContain(credentials.botToken);
    expect(cipher.seal(credentials, "workspace:ws_1")).not.toBe(sealed);
    expect(cipher.open(sealed, "workspace:ws_1")).toEqual(credentials);
  });

  it("fails with WrongSecretKeyError, never garbage, under another key, context or altered data", () => {
    const sealed = cipher.seal(credentials, "workspace:ws_1");
    const [version, iv, tag, data] = sealed.split(".") as [string, string, string, string];
    const flipped = Buffer.from(data, "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => new CredentialCipher(randomBytes(32)).open(sealed, "workspace:ws_1")).toThrow(WrongSecretKeyError);
    expect(() => cipher.open(sealed, "workspace:ws_2")).toThrow(WrongSecretKeyError);
    expect(() => cipher.open([version, iv, tag, flipped.toString("base64url")].join("."), "workspace:ws_1")).toThrow(
      WrongSecretKeyError,
    );
  });

  it("does not take foreign formats for its own", () => {
    const sealed = cipher.seal(credentials, "c");
    for (const foreign of [
      "",
      JSON.stringify(credentials),
      sealed.replace(/^v1/, "v2"),
      `${sealed}.extra`,
      "v1.a.b.c",
    ]) {
      expect(() => cipher.open(foreign, "c")).toThrow(UnreadableCiphertextError);
    }
  });
});
