import { createHash } from "node:crypto";
import { config } from "@/lib/core/config";
import { db } from "@/lib/db/client";
import { ApiError } from "@/lib/core/errors";

/**
 * Stripe's idempotency semantics, scoped by API key + operation + key:
 * - the first response (any status) of a request that started executing is stored and replayed
 *   with `Idempotent-Replayed: true`;
 * - the same key with a different request is refused (422 idempotency/key-reused);
 * - a duplicate arriving while the first still runs is refused (409 idempotency/request-in-progress).
 * Requests that fail validation never reach this point, so they store nothing.
 */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An in-progress record older than this belonged to a request that died; it may be taken over. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/** Response headers that are part of the stored response (X-Request-Id is per request). */
const STORED_HEADERS = ["content-type", "location"];

export function validateIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) throw new ApiError("idempotency/invalid-key");
  return key;
}

/** What identifies a request for idempotency: its parts, each closed by a NUL, hashed. */
export function fingerprint(...parts: (string | Buffer)[]): string {
  const hash = fingerprintHash(...parts);
  return hash.digest("hex");
}

/**
 * The same hash with the last part still open, for a body that streams by: update() it with the
 * body's chunks, then close it with `finishFingerprint` (the body is never held whole).
 */
export function fingerprintHash(...parts: (string | Buffer)[]) {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\u0000");
  return hash;
}

export function finishFingerprint(hash: ReturnType<typeof fingerprintHash>): string {
  return hash.update("\u0000").digest("hex");
}

interface Scope {
  apiKeyId: string;
  projectId: string;
  route: string;
  key: string;
}

interface ExistingRecord {
  id: string;
  requestHash: string;
  responseStatus: number | null;
  responseHeaders: unknown;
  responseBody: Uint8Array | null;
  createdAt: Date;
  expiresAt: Date;
}

export type IdempotencyStart =
  | { kind: "fresh"; recordId: string }
  | { kind: "stored"; record: ExistingRecord };

/** Claims the key for this request, or returns the stored record of an earlier one. */
export async function claimIdempotencyKey(scope: Scope, requestHash: string): Promise<IdempotencyStart> {
  const expiresAt = new Date(Date.now() + config().idempotencyTtlSeconds * 1000);
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db().$queryRaw<{ id: string }[]>`
      INSERT INTO idempotency_records (id, api_key_id, project_id, route, key, request_hash, expires_at)
      VALUES (gen_random_uuid(), ${scope.apiKeyId}::uuid, ${scope.projectId}::uuid, ${scope.route}, ${scope.key},
              ${requestHash}, ${expiresAt})
      ON CONFLICT (api_key_id, route, key) DO NOTHING
      RETURNING id::text AS id`;
    if (inserted[0]) return { kind: "fresh", recordId: inserted[0].id };

    const existing = await db().idempotencyRecord.findUnique({
      where: { apiKeyId_route_key: { apiKeyId: scope.apiKeyId, route: scope.route, key: scope.key } },
    });
    if (!existing) continue; // deleted in between: try to claim again
    const abandoned = existing.responseStatus === null && Date.now() - existing.createdAt.getTime() > ABANDONED_AFTER_MS;
    if (existing.expiresAt.getTime() <= Date.now() || abandoned) {
      await db().idempotencyRecord.deleteMany({ where: { id: existing.id, createdAt: existing.createdAt } });
      continue;
    }
    return { kind: "stored", record: existing };
  }
  throw new ApiError("idempotency/request-in-progress");
}

/** Decides what a duplicate request gets: the stored response, or a refusal. */
export function replayOrRefuse(record: ExistingRecord, requestHash: string, requestId: string): Response {
  if (record.requestHash !== requestHash) throw new ApiError("idempotency/key-reused");
  if (record.responseStatus === null) throw new ApiError("idempotency/request-in-progress");
  const headers = new Headers((record.responseHeaders ?? {}) as Record<string, string>);
  headers.set("Idempotent-Replayed", "true");
  headers.set("X-Request-Id", requestId);
  const body = record.responseBody && record.responseBody.length > 0 ? Buffer.from(record.responseBody) : null;
  return new Response(body, { status: record.responseStatus, headers });
}

/** Stores the first response; `requestHash` may be refined (raw bodies are hashed while streamed). */
export async function storeIdempotentResponse(recordId: string, response: Response, requestHash?: string): Promise<Response> {
  const body = Buffer.from(await response.clone().arrayBuffer());
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  await db().idempotencyRecord.update({
    where: { id: recordId },
    data: {
      responseStatus: response.status,
      responseHeaders: headers,
      responseBody: body,
      completedAt: new Date(),
      ...(requestHash ? { requestHash } : {}),
    },
  });
  return response;
}

export async function pruneExpiredIdempotencyRecords(): Promise<number> {
  const { count } = await db().idempotencyRecord.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return count;
}
