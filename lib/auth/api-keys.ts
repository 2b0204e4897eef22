import { createHash, randomBytes } from "node:crypto";
import { db, sqlPool } from "@/lib/db/client";
import { keyCache } from "@/lib/auth/key-cache";
import { noteKeyUse } from "@/lib/auth/key-usage";
import type { Permission } from "@/lib/auth/permissions";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { ApiError } from "@/lib/core/errors";

const KEY_PREFIX = "sieve_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * Keys are 32 random bytes; only their SHA-256 is stored, so lookup by hash needs no constant-time
 * comparison (the secret never meets a comparison).
 */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, prefix: key.slice(0, KEY_PREFIX.length + 6), hash: hashApiKey(key) };
}

export async function createApiKey(input: {
  projectId: string;
  permissions: Permission[];
  name?: string | null;
  expiresAt?: Date | null;
  rateLimitPerSecond?: number | null;
}): Promise<{ id: string; apiKey: string; permissions: Permission[] }> {
  const { key, prefix, hash } = generateApiKey();
  const row = await db().apiKey.create({
    data: {
      projectId: input.projectId,
      permissions: input.permissions,
      name: input.name ?? null,
      prefix,
      keyHash: hash,
      expiresAt: input.expiresAt ?? null,
      rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    },
  });
  return { id: row.id, apiKey: key, permissions: input.permissions };
}

/** Resolves the X-Api-Key header to a live key, or throws the spec's 401 codes. Runs on every request. */
export async function authenticateApiKey(header: string | null): Promise<AuthenticatedKey> {
  if (header === null || header.trim() === "") throw new ApiError("auth/missing-token");
  const hash = hashApiKey(header.trim());
  const cache = keyCache();
  const cached = cache.get(hash);
  if (cached) {
    noteKeyUse(cached.id);
    return cached;
  }
  const generation = cache.currentGeneration();
  const { rows } = await sqlPool().query<{
    id: string;
    project_id: string;
    permissions: string[];
    rate_limit_per_second: number | null;
    owner_user_id: string;
    expires_at: Date | null;
    label: string;
  }>({
    name: "sieve-authenticate-api-key",
    text: `SELECT k.id, k.project_id, k.permissions, k.rate_limit_per_second, p.owner_user_id, k.expires_at,
                  COALESCE(NULLIF(btrim(k.name), ''), k.prefix) AS label
           FROM api_keys k JOIN projects p ON p.id = k.project_id
           WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
    values: [hash],
  });
  const row = rows[0];
  if (!row) throw new ApiError("auth/invalid-api-key");
  const key: AuthenticatedKey = {
    id: row.id,
    projectId: row.project_id,
    permissions: row.permissions as Permission[],
    rateLimitPerSecond: row.rate_limit_per_second,
    ownerUserId: row.owner_user_id,
    label: row.label,
  };
  cache.set(hash, key, row.expires_at, generation);
  noteKeyUse(key.id);
  return key;
}
