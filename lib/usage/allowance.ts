import { config } from "@/lib/core/config";
import { db, sqlPool } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { recordEvent } from "@/lib/events/record";
import { ApiError } from "@/lib/core/errors";

type Tx = Prisma.TransactionClient;

/**
 * The free upload allowance, counted per project owner. An upload takes one unit before its bytes
 * are stored and gives it back if it fails (`withUploadUnit`), so the count is exact and refusal
 * comes before any transfer. The counter's own tiny transaction commits asynchronously: it holds
 * the owner's row lock for microseconds instead of a WAL flush, so one owner's concurrent uploads
 * do not queue behind each other's disk writes. An OS crash can forget the last few increments
 * (an owner gains an upload or two); it can never lose an upload or corrupt the count.
 */
const TAKE_UNIT = `
UPDATE usage_counters SET uploads_used = uploads_used + 1, updated_at = now()
  FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
 WHERE owner_user_id = $1::uuid AND uploads_used < COALESCE(upload_allowance, $2)
RETURNING uploads_used AS used, COALESCE(upload_allowance, $2) AS allowance, limit_reached_at IS NULL AS unmarked`;

/** Gives a unit back; the limit stays marked as reached, so its event is never sent twice. */
const RETURN_UNIT = `
UPDATE usage_counters SET uploads_used = uploads_used - 1, updated_at = now()
  FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
 WHERE owner_user_id = $1::uuid AND uploads_used > 0`;

export async function takeUploadUnit(projectId: string, ownerUserId: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await sqlPool().query<{ used: number; allowance: number; unmarked: boolean }>({
      name: "sieve-take-upload-unit",
      text: TAKE_UNIT,
      values: [ownerUserId, config().freeUploadAllowance],
    });
    const taken = rows[0];
    if (taken) {
      if (taken.used >= taken.allowance && taken.unmarked) await markLimitReached(projectId, ownerUserId, taken.allowance, taken.used);
      return;
    }
    // Nothing taken: the allowance is used up (this throws), or the owner has no counter yet.
    await assertUploadAllowed(projectId, ownerUserId);
    await ensureUsageCounter(ownerUserId);
  }
  throw new ApiError("upload/allowance-exhausted");
}

export async function returnUploadUnit(ownerUserId: string): Promise<void> {
  await sqlPool().query({ name: "sieve-return-upload-unit", text: RETURN_UNIT, values: [ownerUserId] });
}

/** Runs an upload with one unit of the owner's allowance, returned if the upload fails. */
export async function withUploadUnit<T>(projectId: string, ownerUserId: string, upload: () => Promise<T>): Promise<T> {
  await takeUploadUnit(projectId, ownerUserId);
  try {
    return await upload();
  } catch (error) {
    await returnUploadUnit(ownerUserId).catch((returnError: unknown) =>
      console.error("[sieve] could not return an upload unit:", returnError instanceof Error ? returnError.message : returnError),
    );
    throw error;
  }
}

/** Creates the owner's counter (new owners get one with their first project). */
export async function ensureUsageCounter(ownerUserId: string): Promise<void> {
  await db().usageCounter.upsert({ where: { ownerUserId }, create: { ownerUserId }, update: {} });
}

/** Refuses when the allowance is used up (recording the limit event if it never was). */
export async function assertUploadAllowed(projectId: string, ownerUserId: string): Promise<void> {
  const { rows } = await sqlPool().query<{ used: number; allowance: number | null; reached: Date | null }>({
    name: "sieve-upload-allowance",
    text: "SELECT uploads_used AS used, upload_allowance AS allowance, limit_reached_at AS reached FROM usage_counters WHERE owner_user_id = $1",
    values: [ownerUserId],
  });
  const counter = rows[0];
  const allowance = counter?.allowance ?? config().freeUploadAllowance;
  const used = counter?.used ?? 0;
  if (used < allowance) return;
  // Reached without the event (e.g. the allowance was lowered, or a crash came between): emit it now.
  if (!counter?.reached) await markLimitReached(projectId, ownerUserId, allowance, used);
  throw new ApiError("upload/allowance-exhausted");
}

/**
 * Marks the owner's limit as reached and records `usage.limit-reached`, in one transaction, once:
 * only the caller that flips `limit_reached_at` from null writes the event.
 */
async function markLimitReached(projectId: string, ownerUserId: string, limit: number, used: number): Promise<void> {
  await db().$transaction(async (tx) => {
    const claimed = await tx.usageCounter.updateMany({ where: { ownerUserId, limitReachedAt: null }, data: { limitReachedAt: new Date() } });
    if (claimed.count === 1) await recordLimitReached(tx, projectId, ownerUserId, limit, used);
  });
}

async function recordLimitReached(tx: Tx, projectId: string, ownerUserId: string, limit: number, used: number) {
  await recordEvent(tx, {
    projectId,
    type: "usage.limit-reached",
    title: "Free upload allowance used",
    description: `The project owner has used all ${limit} free uploads; new uploads are blocked.`,
    facts: [
      { key: "limit", value: limit },
      { key: "used", value: used },
      { key: "owner-user-id", value: ownerUserId },
    ],
  });
}

/** Sets (or with null, clears) an owner's own allowance; raising it above use unblocks uploads. */
export async function setUploadAllowance(ownerUserId: string, uploads: number | null) {
  const counter = await db().usageCounter.upsert({
    where: { ownerUserId },
    create: { ownerUserId, uploadAllowance: uploads },
    update: { uploadAllowance: uploads },
  });
  const allowance = counter.uploadAllowance ?? config().freeUploadAllowance;
  if (counter.uploadsUsed < allowance && counter.limitReachedAt) {
    await db().usageCounter.update({ where: { ownerUserId }, data: { limitReachedAt: null } });
  }
  return { ownerUserId, uploadAllowance: allowance, uploadsUsed: counter.uploadsUsed };
}
