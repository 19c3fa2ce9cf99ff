import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from "jose";

/** An RSA key the fake channel signs with, published in its JWKS with the channels it endorses. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The JWKS entry, shaped like login.botframework.com's (kty, use, kid, x5t, n, e, endorsements). */
  jwk: JWK & { endorsements: string[] };
}

export async function generateSigningKey(kid: string, endorsements: string[]): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const { kty, n, e } = await exportJWK(publicKey);
  return { kid, privateKey, jwk: { kty, use: "sig", kid, x5t: kid, n, e, endorsements } };
}
