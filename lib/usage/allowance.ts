import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { recordEvent } from "@/lib/events/record";
import { ApiError } from "@/lib/http/errors";

type Tx = Prisma.TransactionClient;

/**
 * The free upload allowance, counted per project owner. `consumeUpload` runs in the upload's
 * transaction: the row lock on the owner's counter makes concurrent uploads count exactly.
 */
export async function consumeUpload(tx: Tx, projectId: string, ownerUserId: string): Promise<void> {
  const allowance = config().freeUploadAllowance;
  await tx.$executeRaw`
    INSERT INTO usage_counters (owner_user_id, uploads_used, updated_at) VALUES (${ownerUserId}::uuid, 0, now())
    ON CONFLICT (owner_user_id) DO NOTHING`;
  const rows = await tx.$queryRaw<{ used: number; allowance: number; reached: Date | null }[]>`
    UPDATE usage_counters SET uploads_used = uploads_used + 1, updated_at = now()
    WHERE owner_user_id = ${ownerUserId}::uuid AND uploads_used < COALESCE(upload_allowance, ${allowance})
    RETURNING uploads_used AS used, COALESCE(upload_allowance, ${allowance}) AS allowance, limit_reached_at AS reached`;
  const row = rows[0];
  if (!row) throw new ApiError("upload/allowance-exhausted");
  if (row.used >= row.allowance && row.reached === null) {
    await tx.usageCounter.update({ where: { ownerUserId }, data: { limitReachedAt: new Date() } });
    await recordLimitReached(tx, projectId, ownerUserId, row.allowance, row.used);
  }
}

/** Cheap early refusal before any bytes are stored; `consumeUpload` stays the authority. */
export async function assertUploadAllowed(projectId: string, ownerUserId: string): Promise<void> {
  const counter = await db().usageCounter.findUnique({ where: { ownerUserId } });
  const allowance = counter?.uploadAllowance ?? config().freeUploadAllowance;
  const used = counter?.uploadsUsed ?? 0;
  if (used < allowance) return;
  // Reached without the event (e.g. the allowance was lowered): emit it once, then refuse.
  if (!counter?.limitReachedAt) {
    await db().$transaction(async (tx) => {
      const claimed = await tx.usageCounter.updateMany({
        where: { ownerUserId, limitReachedAt: null },
        data: { limitReachedAt: new Date() },
      });
      if (claimed.count === 1) await recordLimitReached(tx, projectId, ownerUserId, allowance, used);
    });
  }
  throw new ApiError("upload/allowance-exhausted");
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
