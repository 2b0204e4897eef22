import { assetEvent } from "@/lib/assets/events";
import { assertNotHeld } from "@/lib/assets/lookup";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow, Prisma } from "@/lib/db/generated/client";
import { recordEvent, type NewEvent } from "@/lib/events/record";

/**
 * Review decisions: a person (or an API key acting for one) approves or rejects an asset. One
 * function for the API (POST /assets/{assetId}/review) and the portal. In one transaction, with the
 * asset row locked: the status changes and `asset.approved` / `asset.rejected` is recorded. The CDN
 * stops serving a rejected asset at once: a trigger on assets.status tells its caches.
 *
 * Transitions (spec "States and transitions"): approve only from `rejected`; reject from any status
 * except `uploading` (nothing has been received yet to judge). Others get 409
 * `asset/invalid-transition`; a safety-held asset gets 423 `asset/safety-held`.
 */
export type ReviewDecision = "approve" | "reject";

/** Who decided: a user (portal), or an API key (userId null, name = the key's name or prefix). */
export interface ReviewActor {
  userId: string | null;
  name: string;
  /**
   * A reviewer in the portal: approving an asset that was approved with an alert raised confirms
   * the alert — nothing about the asset changes, but it has had its decision and leaves the review
   * queue. The API's approve stays "only from rejected", as the spec has it.
   */
  confirmsAlerts?: boolean;
}

export const DEFAULT_REJECTION_NOTE = "Rejected by a reviewer";
export const REVIEW_NOTE_MAX_LENGTH = 2000;

/** The status a decision leads to, or the reason it is refused. Pure. */
export function reviewTransition(status: AssetRow["status"], decision: ReviewDecision): { to: "approved" | "rejected" } | { refused: string } {
  if (decision === "approve") {
    return status === "rejected" ? { to: "approved" } : { refused: `Only a rejected asset can be approved; this one is ${status}.` };
  }
  return status === "uploading" ? { refused: "An asset still uploading cannot be rejected; wait for its last part." } : { to: "rejected" };
}

/** A blank note is no note. */
export function normaliseNote(note: string | null | undefined): string | null {
  const trimmed = note?.trim() ?? "";
  return trimmed === "" ? null : trimmed;
}

export function reviewEvent(row: AssetRow, decision: ReviewDecision, actor: ReviewActor, note: string | null): NewEvent {
  const approved = decision === "approve";
  return assetEvent(row, {
    type: approved ? "asset.approved" : "asset.rejected",
    userId: actor.userId,
    title: `Asset ${approved ? "approved" : "rejected"} by a reviewer: ${row.name}`,
    description: `${approved ? "Approved" : "Rejected"} by ${actor.name}${note ? `: ${note}` : "."}`,
    facts: [
      { key: "reviewer-user-id", value: actor.userId },
      { key: "reviewer-name", value: actor.name },
      { key: "note", value: note },
    ],
  });
}

async function lockAsset(tx: Prisma.TransactionClient, assetId: string): Promise<AssetRow> {
  await tx.$executeRaw`SELECT 1 FROM assets WHERE id = ${assetId}::uuid FOR UPDATE`;
  const row = await tx.asset.findUnique({ where: { id: assetId } });
  if (!row) throw new ApiError("asset/not-found");
  return row;
}

/**
 * Applies a review decision to an asset (already authorised for the actor) and returns the asset.
 * Approve sets `approved` and clears the rejection note; reject sets `rejected` with the note (or
 * "Rejected by a reviewer"). The report, flags and moderation action stay as the pipeline left them.
 */
export async function reviewAsset(asset: AssetRow, input: { decision: ReviewDecision; note?: string | null; actor: ReviewActor }): Promise<AssetRow> {
  const note = normaliseNote(input.note);
  if (note !== null && note.length > REVIEW_NOTE_MAX_LENGTH) throw new ApiError("request/validation-failed", `note: at most ${REVIEW_NOTE_MAX_LENGTH} characters`);
  return db().$transaction(async (tx) => {
    const current = await lockAsset(tx, asset.id);
    assertNotHeld(current);
    if (input.decision === "approve" && input.actor.confirmsAlerts === true && isAlerted(current)) return confirmAlert(tx, current);
    const transition = reviewTransition(current.status, input.decision);
    if ("refused" in transition) throw new ApiError("asset/invalid-transition", transition.refused);
    const updated = await tx.asset.update({
      where: { id: current.id },
      data: { status: transition.to, rejectionNote: transition.to === "rejected" ? (note ?? DEFAULT_REJECTION_NOTE) : null, reviewedAt: new Date() },
    });
    await recordEvent(tx, reviewEvent(updated, input.decision, input.actor, note));
    return updated;
  });
}

/** Approved with an alert raised (the project's `alert` action on flagged content). */
export function isAlerted(row: Pick<AssetRow, "status" | "flagged" | "moderationAction">): boolean {
  return row.status === "approved" && row.flagged === true && row.moderationAction === "alert";
}

/** The same condition as a query filter. */
export const ALERTED_WHERE = { status: "approved", flagged: true, moderationAction: "alert" } as const satisfies Prisma.AssetWhereInput;

/** The portal's approve of an alerted asset (ReviewActor.confirmsAlerts): 409 when already confirmed. */
async function confirmAlert(tx: Prisma.TransactionClient, current: AssetRow): Promise<AssetRow> {
  if (current.reviewedAt !== null) throw new ApiError("asset/invalid-transition", "This alert was already confirmed by a reviewer.");
  return tx.asset.update({ where: { id: current.id }, data: { reviewedAt: new Date() } });
}

/** The actor of a decision made with an API key: no user; the key's name, else its prefix. */
export function apiKeyReviewer(key: Pick<AuthenticatedKey, "label">): ReviewActor {
  return { userId: null, name: key.label };
}
