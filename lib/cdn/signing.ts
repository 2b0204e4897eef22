import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { config } from "@/lib/core/config";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";

/**
 * Signed CDN URLs: `?exp=<ms since epoch>&sig=<keyId>.<base64url HMAC-SHA256>`. The HMAC covers a
 * canonical string of everything that changes the response — project, asset identifier, resource,
 * the normalized selector — and the expiry, so no part can be swapped. The key id lets a new key
 * sign while older ones still verify (rotation). Keys come from CDN_SIGNING_KEYS (several servers
 * sharing them) or, by default, from the database, where the first one is made on first use.
 */
export interface SignedTarget {
  projectId: string;
  assetIdentifier: string;
  resource: "content" | "preview";
  /** "" (none), "@lens" or a transform selector in its canonical form. */
  selector: string;
}

interface SigningKey {
  id: string;
  secret: Buffer;
}

const KEY_REFRESH_MS = 60_000;

export function canonicalString(target: SignedTarget, expiresAt: number): string {
  return ["sieve-cdn-v1", target.projectId.toLowerCase(), target.assetIdentifier, target.resource, target.selector, String(expiresAt)].join("\n");
}

function mac(key: SigningKey, target: SignedTarget, expiresAt: number): Buffer {
  return createHmac("sha256", key.secret).update(canonicalString(target, expiresAt)).digest();
}

export async function sign(target: SignedTarget, expiresAt: number): Promise<string> {
  const [key] = await signingKeys();
  if (!key) throw new Error("no CDN signing key");
  return `${key.id}.${mac(key, target, expiresAt).toString("base64url")}`;
}

export type SignatureCheck = "valid" | "expired" | "invalid";

/** Constant-time comparison of the full MAC; expiry is checked only on a genuine signature. */
export async function verify(target: SignedTarget, exp: string, sig: string, now = Date.now()): Promise<SignatureCheck> {
  if (!/^\d{1,16}$/.test(exp)) return "invalid";
  const dot = sig.indexOf(".");
  if (dot <= 0) return "invalid";
  const keyId = sig.slice(0, dot);
  // A key made by another process since our last read: read again (at most once a second).
  const key = (await signingKeys()).find((k) => k.id === keyId) ?? (await signingKeys(1_000)).find((k) => k.id === keyId);
  // Compared as text in its one canonical encoding: base64 decoders ignore the unused low bits of
  // the last character, which would let several spellings of one signature pass.
  const given = Buffer.from(sig.slice(dot + 1), "latin1");
  if (!key) return "invalid";
  const expected = Buffer.from(mac(key, target, Number(exp)).toString("base64url"), "latin1");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
  return Number(exp) > now ? "valid" : "expired";
}

interface KeyState {
  keys: SigningKey[];
  loadedAt: number;
  loading?: Promise<SigningKey[]>;
}

function keyState(): KeyState {
  return processSingleton<KeyState>("cdn-signing-keys", () => ({ keys: [], loadedAt: 0 }));
}

/** Newest first: the first key signs. */
async function signingKeys(maxAgeMs = KEY_REFRESH_MS): Promise<SigningKey[]> {
  const fromEnv = config().cdn.signingKeys;
  if (fromEnv) return fromEnv;
  const state = keyState();
  if (state.keys.length > 0 && Date.now() - state.loadedAt < maxAgeMs) return state.keys;
  state.loading ??= loadKeys().then(
    (keys) => {
      state.keys = keys;
      state.loadedAt = Date.now();
      state.loading = undefined;
      return keys;
    },
    (error: unknown) => {
      state.loading = undefined;
      throw error;
    },
  );
  return state.loading;
}

export const SELECT_SIGNING_KEYS = `SELECT id, secret FROM cdn_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, id DESC`;
export const INSERT_FIRST_SIGNING_KEY = `INSERT INTO cdn_signing_keys (id, secret)
  SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM cdn_signing_keys WHERE retired_at IS NULL)`;

async function loadKeys(): Promise<SigningKey[]> {
  const read = async () => (await sqlPool().query<SigningKey>(SELECT_SIGNING_KEYS)).rows;
  const keys = await read();
  if (keys.length > 0) return keys;
  // Two processes racing here: one insert wins (the advisory lock), both then read the same key.
  await withTransaction(sqlPool(), async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(7404, 1)");
    await client.query(INSERT_FIRST_SIGNING_KEY, [newKeyId(), randomBytes(32)]);
  });
  return read();
}

export function newKeyId(): string {
  return `k${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

/**
 * A new key signs from now on; older keys keep verifying. Keys that stopped signing more than the
 * longest URL lifetime ago (a newer key existed 24 h ago) can verify nothing alive: they are retired.
 */
export async function rotateSigningKey(): Promise<{ id: string; retired: number }> {
  const id = newKeyId();
  await sqlPool().query(`INSERT INTO cdn_signing_keys (id, secret) VALUES ($1, $2)`, [id, randomBytes(32)]);
  const result = await sqlPool().query(
    `UPDATE cdn_signing_keys k SET retired_at = now() WHERE k.retired_at IS NULL AND EXISTS (
       SELECT 1 FROM cdn_signing_keys n WHERE n.created_at > k.created_at AND n.created_at < now() - interval '24 hours')`,
  );
  keyState().loadedAt = 0;
  return { id, retired: result.rowCount ?? 0 };
}
