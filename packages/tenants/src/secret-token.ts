import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

/** Recognisable, so secret scanners and people can tell a leaked resident token at a glance. */
export const tokenPrefix = "rsd_";

/** 256 random bits, base64url. Shown once; only its hash is stored. */
export function newSecretToken(): string {
  return `${tokenPrefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * The first characters of a token: shown in token lists to tell tokens apart, and the key failed sign-ins are
 * counted under per token. For our tokens that is `rsd_` and 48 of their 256 random bits; 208 stay secret.
 */
export function tokenStart(token: string): string {
  return token.slice(0, tokenPrefix.length + 8);
}

/*
 * A fast hash is right for the tokens we generate: they carry 256 random bits, so no amount of hashing speed makes
 * guessing one feasible, and a slow hash would add latency to every admin request. Lookup is by hash through a
 * unique index: what an attacker controls (the token) is not what gets compared byte by byte (its hash).
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const slowHashScheme = "scrypt";

/**
 * A token chosen by a person (ADMIN_TOKEN) may be guessable, so it is stored with scrypt and a random salt:
 * `scrypt$<salt>$<hash>` (base64url), scrypt's default cost (N=16384, r=8, p=1).
 */
export async function slowHashToken(token: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(token, salt, 32);
  return [slowHashScheme, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** Whether `token` is the one `stored` (a slow hash, or a fast one from before slow hashes) was made from. */
export async function tokenMatches(token: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== slowHashScheme || !salt || !hash) return equalText(hashToken(token), stored);
  const expected = Buffer.from(hash, "base64url");
  return timingSafeEqual(await scryptAsync(token, Buffer.from(salt, "base64url"), expected.length), expected);
}

export function isSlowHash(stored: string): boolean {
  return stored.startsWith(`${slowHashScheme}$`);
}

function equalText(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
