import { assertSameProject, type ProjectScope } from "@/lib/auth/authorize";
import { keyCache } from "@/lib/auth/key-cache";
import type { Permission } from "@/lib/auth/permissions";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";

/** A key as its project's admins see it: never the secret nor its hash, only the prefix. */
export interface ApiKeySummary {
  id: string;
  name: string | null;
  prefix: string;
  permissions: Permission[];
  rateLimitPerSecond: number | null;
  createdAt: number;
  /** To the minute: uses are recorded at most once a minute (lib/auth/key-usage.ts). */
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

const SUMMARY = {
  id: true,
  projectId: true,
  name: true,
  prefix: true,
  permissions: true,
  rateLimitPerSecond: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;

type Row = Prisma.ApiKeyGetPayload<{ select: typeof SUMMARY }>;

function summary(row: Row): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions as Permission[],
    rateLimitPerSecond: row.rateLimitPerSecond,
    createdAt: row.createdAt.getTime(),
    lastUsedAt: row.lastUsedAt?.getTime() ?? null,
    expiresAt: row.expiresAt?.getTime() ?? null,
    revokedAt: row.revokedAt?.getTime() ?? null,
  };
}

/** The project's keys, live ones first, newest first within each group. */
export async function listProjectApiKeys(projectId: string): Promise<ApiKeySummary[]> {
  const rows = await db().apiKey.findMany({ where: { projectId }, select: SUMMARY, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
  const keys = rows.map(summary);
  return [...keys.filter((k) => k.revokedAt === null), ...keys.filter((k) => k.revokedAt !== null)];
}

export async function apiKeySummary(scope: ProjectScope, keyId: string): Promise<ApiKeySummary> {
  const row = await db().apiKey.findUnique({ where: { id: keyId }, select: SUMMARY });
  if (!row) throw new ApiError("api-key/not-found");
  assertSameProject(scope, row.projectId);
  return summary(row);
}

/**
 * Revokes a key, effective on its next request: this process forgets the cached key before
 * answering (the trigger's NOTIFY tells the others). Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(scope: ProjectScope, keyId: string): Promise<ApiKeySummary> {
  const found = await db().apiKey.findUnique({ where: { id: keyId }, select: { projectId: true, keyHash: true } });
  if (!found) throw new ApiError("api-key/not-found");
  assertSameProject(scope, found.projectId);
  await db().apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  keyCache().forget(found.keyHash);
  return apiKeySummary(scope, keyId);
}
