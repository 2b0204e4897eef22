import { randomBytes } from "node:crypto";

/** Prefix of a Standard Webhooks signing secret (https://www.standardwebhooks.com). */
export const SECRET_PREFIX = "whsec_";
/** Bytes of key material in a new secret (Standard Webhooks asks for 24 to 64). */
export const SECRET_BYTES = 32;

/**
 * A new connector signing secret: `whsec_` and the base64 of 32 random bytes. The receiver strips
 * the prefix and base64-decodes the rest to get the HMAC-SHA256 key.
 */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}
