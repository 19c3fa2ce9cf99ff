import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { UnreadableCiphertextError, WrongSecretKeyError } from "./errors.ts";

const version = "v1";
const algorithm = "aes-256-gcm";
const ivBytes = 12;
const tagBytes = 16;

/**
 * Seals JSON values with AES-256-GCM. The sealed form is `v1.<iv>.<tag>.<data>` (base64url parts), so a later
 * version can change the scheme and still read old rows. `context` is bound as additional authenticated data
 * (e.g. the workspace id): a ciphertext copied onto another row does not open there.
 */
export class CredentialCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError("an AES-256 key is 32 bytes");
  }

  seal(value: unknown, context: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv(algorithm, this.key, iv, { authTagLength: tagBytes });
    cipher.setAAD(Buffer.from(context, "utf8"));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return [version, iv, cipher.getAuthTag(), data].map((part) => part.toString("base64url")).join(".");
  }

  /** Throws WrongSecretKeyError when the key (or context) differs, UnreadableCiphertextError for a foreign format. */
  open(sealed: string, context: string): unknown {
    const [tagVersion, ...parts] = sealed.split(".");
    const [iv, tag, data] = parts.map((part) => Buffer.from(part, "base64url"));
    if (tagVersion !== version || parts.length !== 3 || iv?.length !== ivBytes || tag?.length !== tagBytes || !data) {
      throw new UnreadableCiphertextError(`stored credentials are not in the ${version} format`);
    }
    const decipher = createDecipheriv(algorithm, this.key, iv, { authTagLength: tagBytes });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data), decipher.final()]);
    } catch {
      throw new WrongSecretKeyError();
    }
    return JSON.parse(plain.toString("utf8"));
  }
}
