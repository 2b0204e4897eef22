import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { SECRET_PREFIX } from "@/lib/connectors/secrets";
import { singletonGetter } from "@/lib/core/singleton";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, what Svix sends): HMAC-SHA256 over
 * `${msgId}.${timestampSeconds}.${body}` with the secret's bytes, written `v1,<base64>`. Secrets are
 * `whsec_<base64 of the key bytes>`. Several signatures are space-separated: during the grace period
 * after a rotation every message carries one per live secret, so a receiver holding either verifies.
 */

/** The key bytes of a `whsec_<base64>` secret (a bare base64 secret is read the same way). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

/**
 * Keys by secret, decoded once and held as KeyObjects: createHmac with a KeyObject skips the
 * conversion of key bytes it does per call (~0.5 µs of every delivery's signing).
 */
const MAX_KEYS = 1024;
const keys = singletonGetter("webhookSigningKeys", () => new Map<string, KeyObject>());

function cachedSecretKey(secret: string): KeyObject {
  const cache = keys();
  let key = cache.get(secret);
  if (!key) {
    key = createSecretKey(secretKey(secret));
    cache.set(secret, key);
    if (cache.size > MAX_KEYS) cache.delete(cache.keys().next().value as string);
  }
  return key;
}

/** One `v1,<base64>` signature. */
export function signature(secret: string, msgId: string, timestampSeconds: number, body: Buffer | string): string {
  const mac = createHmac("sha256", cachedSecretKey(secret));
  mac.update(`${msgId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

/** The `webhook-signature` header value: one signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, body: Buffer | string): string {
  if (secrets.length === 1) return signature(secrets[0] as string, msgId, timestampSeconds, body);
  return secrets.map((secret) => signature(secret, msgId, timestampSeconds, body)).join(" ");
}

export interface ConnectorSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets that sign now: the current one, and the previous one until its grace period ends. */
export function liveSecrets(connector: ConnectorSecrets, nowMs = Date.now()): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = connector;
  const previousLive = previousSecret && previousSecretExpiresAt && previousSecretExpiresAt.getTime() > nowMs;
  return previousLive && previousSecret !== secret ? [secret, previousSecret] : [secret];
}
