import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import type { Permission } from "@/lib/auth/permissions";
import { ApiError } from "@/lib/http/errors";

export interface AuthenticatedKey {
  id: string;
  projectId: string;
  permissions: Permission[];
  rateLimitPerSecond: number | null;
}

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

/** Resolves the X-Api-Key header to a live key, or throws the spec's 401 codes. */
export async function authenticateApiKey(header: string | null): Promise<AuthenticatedKey> {
  if (header === null || header.trim() === "") throw new ApiError("auth/missing-token");
  const row = await db().apiKey.findUnique({
    where: { keyHash: hashApiKey(header.trim()) },
    select: { id: true, projectId: true, permissions: true, revokedAt: true, expiresAt: true, rateLimitPerSecond: true },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) {
    throw new ApiError("auth/invalid-api-key");
  }
  return {
    id: row.id,
    projectId: row.projectId,
    permissions: row.permissions as Permission[],
    rateLimitPerSecond: row.rateLimitPerSecond,
  };
}
