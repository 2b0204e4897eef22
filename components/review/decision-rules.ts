import type { QueueItem } from "@/lib/portal/types";

/*
 * Why a decision button is disabled, in words shown next to it (a disabled button cannot be
 * focused, so a tooltip alone would hide the reason from keyboard users). null = allowed.
 * The server decides in the end (409/423); these only spare the reviewer a refusal.
 */
export const NO_REVIEW_PERMISSION = "Your role in this project cannot make review decisions.";

export function approveBlockedReason(item: QueueItem, canReview = true): string | null {
  if (!canReview) return NO_REVIEW_PERMISSION;
  if (item.asset.safetyHold) return "Held for safety: no decisions until the hold is released.";
  if (item.canApprove) return null;
  if (item.asset.status === "error") return "Cannot approve: processing failed; retry the asset first.";
  return "Cannot approve: only rejected or alerted assets can be approved.";
}

export function rejectBlockedReason(item: QueueItem, canReview = true): string | null {
  if (!canReview) return NO_REVIEW_PERMISSION;
  if (item.asset.safetyHold) return "Held for safety: no decisions until the hold is released.";
  if (item.asset.status === "uploading") return "Cannot reject: the upload has not finished.";
  return null;
}
