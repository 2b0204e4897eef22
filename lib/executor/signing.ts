import crypto from "node:crypto";
import canonicalize from "canonicalize";

/**
 * Inngest request signing: `X-Inngest-Signature: t=<unix seconds>&s=<hex HMAC-SHA256>` over the
 * canonical (RFC 8785) JSON body followed by the timestamp, keyed with the signing key minus its
 * `signkey-<env>-` prefix. The SDK verifies it on every call, in every mode.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("value cannot be serialized as JSON");
  return text;
}

function keyMaterial(signingKey: string): string {
  return signingKey.replace(/^signkey-\w+-/, "");
}

export function signBody(body: string, signingKey: string, now = Date.now()): string {
  const ts = Math.floor(now / 1000).toString();
  const s = crypto.createHmac("sha256", keyMaterial(signingKey)).update(body + ts).digest("hex");
  return `t=${ts}&s=${s}`;
}

/** A fresh local signing key in Inngest's format. */
export function generateSigningKey(): string {
  return `signkey-local-${crypto.randomBytes(32).toString("hex")}`;
}
