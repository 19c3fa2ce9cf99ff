import { createHash, randomBytes } from "node:crypto";

/** Recognisable, so secret scanners and people can tell a leaked resident token at a glance. */
export const tokenPrefix = "rsd_";

/** 256 random bits, base64url. Shown once; only its hash is stored. */
export function newSecretToken(): string {
  return `${tokenPrefix}${randomBytes(32).toString("base64url")}`;
}

/*
 * A fast hash is right here: our tokens carry 256 random bits, so no amount of hashing speed makes guessing one
 * feasible; slow password hashes (scrypt, argon2) exist for low-entropy human passwords and would only add latency
 * to every admin request. Lookup is by hash through a unique index: what an attacker controls (the token) is not
 * what gets compared byte by byte (its hash), so response timing reveals nothing about stored tokens.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
