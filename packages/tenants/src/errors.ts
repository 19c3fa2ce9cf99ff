/** SECRET_KEY (or the generated key file) cannot be used as a key. */
export class InvalidSecretKeyError extends Error {
  override name = "InvalidSecretKeyError";
}

/** Stored ciphertext does not open with this key: SECRET_KEY differs from the one it was sealed with, or it was altered. */
export class WrongSecretKeyError extends Error {
  override name = "WrongSecretKeyError";
  constructor(
    message = "SECRET_KEY does not match the key the stored credentials were encrypted with (or the stored data was altered)",
  ) {
    super(message);
  }
}

/** Stored ciphertext is not in a format this version knows. */
export class UnreadableCiphertextError extends Error {
  override name = "UnreadableCiphertextError";
}

/** Input to the registry is malformed. `issues` name fields and rules, never values. → 400 */
export class InvalidInputError extends Error {
  override name = "InvalidInputError";
  constructor(readonly issues: string[]) {
    super(`invalid input: ${issues.join("; ")}`);
  }
}

/** The tenant does not exist. → 404 */
export class UnknownTenantError extends Error {
  override name = "UnknownTenantError";
  constructor(readonly tenantId: string) {
    super(`unknown tenant ${tenantId}`);
  }
}

/** The caller may not act on this tenant (a tenant admin token used on another tenant, or on operator work). → 403 */
export class AccessDeniedError extends Error {
  override name = "AccessDeniedError";
}
