import { randomBytes, scrypt } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Logger } from "@resident/core";
import { InvalidSecretKeyError } from "./errors.ts";

const keyBytes = 32;
const minPassphraseLength = 16;
const keyFileName = "secret.key";

const scryptAsync = promisify(scrypt) as (password: string, salt: string, keylen: number) => Promise<Buffer>;

/** A 32-byte key written as 64 hex digits or base64 / base64url; anything else is not a raw key. */
function decodeRawKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const key = Buffer.from(text, "base64url");
    if (key.length === keyBytes) return key;
  }
  return undefined;
}

async function keyFromSecret(secret: string, salt: () => Promise<string>): Promise<Buffer> {
  const raw = decodeRawKey(secret);
  if (raw) return raw;
  if (secret.length < minPassphraseLength) {
    throw new InvalidSecretKeyError(
      `SECRET_KEY must be a 32-byte key (64 hex digits or base64) or a passphrase of at least ${minPassphraseLength} characters`,
    );
  }
  // scrypt, not a bare hash: a passphrase may be guessable, and a memory-hard KDF makes each guess expensive.
  return scryptAsync(secret, await salt(), keyBytes);
}

/**
 * Reads `<dataDir>/secret.key`, creating it on the first start. The new key is written to a private temporary file
 * and hard-linked into place, which fails if the file exists: instances starting together all end up with the
 * one key that won, and nobody ever reads a half-written file.
 */
async function keyFromFile(dataDir: string): Promise<Buffer> {
  const path = join(dataDir, keyFileName);
  await mkdir(dataDir, { recursive: true });
  const candidate = join(dataDir, `.${keyFileName}.${process.pid}.${randomBytes(6).toString("hex")}`);
  await writeFile(candidate, `${randomBytes(keyBytes).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    await link(candidate, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await rm(candidate, { force: true });
  }
  const key = decodeRawKey((await readFile(path, "utf8")).trim());
  if (!key) throw new InvalidSecretKeyError(`${path} does not hold a 32-byte base64 key`);
  return key;
}

export interface SecretKeySource {
  /** SECRET_KEY: a 32-byte key in hex or base64, or a passphrase (scrypt-derived). */
  secretKey?: string;
  dataDir: string;
  logger: Logger;
  /** The passphrase's salt, asked only for a passphrase: the one stored beside the data (passphrase-salt.ts). */
  passphraseSalt: () => Promise<string>;
}

/** The key that encrypts stored credentials: SECRET_KEY when set, else a key generated once under DATA_DIR. */
export async function loadSecretKey({ secretKey, dataDir, logger, passphraseSalt }: SecretKeySource): Promise<Buffer> {
  if (secretKey !== undefined) return keyFromSecret(secretKey, passphraseSalt);
  const key = await keyFromFile(dataDir);
  logger.warn(
    { path: join(dataDir, keyFileName) },
    "SECRET_KEY is not set: credentials are encrypted with the key generated in this file; set SECRET_KEY explicitly when more than one instance shares the database",
  );
  return key;
}
