import type { CredentialCipher } from "./credential-cipher.ts";
import type { SqlClient } from "./sql-client.ts";

const context = "secret-key-check";

/**
 * Seals a known value with the first key the database ever sees, and opens it at every start: an instance given a
 * different SECRET_KEY fails at once with WrongSecretKeyError instead of failing on every webhook later.
 */
export async function checkSecretKey(sql: SqlClient, cipher: CredentialCipher): Promise<void> {
  await sql.query("insert into secret_key_check (ciphertext) values ($1) on conflict (singleton) do nothing", [
    cipher.seal("resident", context),
  ]);
  const [row] = await sql.query<{ ciphertext: string }>("select ciphertext from secret_key_check");
  if (row) cipher.open(row.ciphertext, context);
}
