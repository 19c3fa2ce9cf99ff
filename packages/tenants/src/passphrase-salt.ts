import { randomBytes } from "node:crypto";
import type { SqlClient } from "./sql-client.ts";

/** The salt every passphrase SECRET_KEY was derived with before salts were stored: fixed and public. */
const legacyPassphraseSalt = "resident/credentials/v1";

/**
 * The salt of a passphrase SECRET_KEY, stored in the database beside the credentials it protects, so every instance
 * sharing the database derives the same key. The first instance to ask decides it in one statement: a database that
 * already holds data sealed before salts were stored (its secret_key_check row exists) keeps the fixed legacy salt,
 * so that data still opens; a fresh database gets 16 random bytes. Instances starting together race on the insert
 * and all read back the one that won.
 */
export async function sharedPassphraseSalt(sql: SqlClient): Promise<string> {
  await sql.query(
    `insert into secret_key_salt (salt)
     select case when exists (select 1 from secret_key_check) then $1 else $2 end
     on conflict (singleton) do nothing`,
    [legacyPassphraseSalt, randomBytes(16).toString("base64url")],
  );
  const [row] = await sql.query<{ salt: string }>("select salt from secret_key_salt");
  if (!row) throw new Error("secret_key_salt holds no salt");
  return row.salt;
}
