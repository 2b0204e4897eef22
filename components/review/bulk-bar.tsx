"use client";

import { useId } from "react";
import type { QueueItem, ReviewRequest } from "@/lib/portal/types";
import { buttonClass } from "@/components/portal/styles";
import { approveBlockedReason, NO_REVIEW_PERMISSION, rejectBlockedReason } from "./decision-rules";

export const BULK_LIMIT = 100;

/** Selection summary and the bulk decisions (the review-batches route takes 1–100 assets). */
export function BulkBar({
  items,
  selectedItems,
  canReview,
  pending,
  onSelectAll,
  onClear,
  onDecide,
}: {
  items: QueueItem[];
  selectedItems: QueueItem[];
  canReview: boolean;
  pending: boolean;
  onSelectAll: (select: boolean) => void;
  onClear: () => void;
  onDecide: (decision: ReviewRequest["decision"]) => void;
}) {
  const allId = useId();
  const reasonId = useId();
  const count = selectedItems.length;
  const allSelected = items.length > 0 && count === items.length;
  // The rows' own rules, counted over the selection (one definition of what may be decided).
  const notApprovable = selectedItems.filter((item) => approveBlockedReason(item, canReview)).length;
  const notRejectable = selectedItems.filter((item) => rejectBlockedReason(item, canReview)).length;
  const cannot = (n: number, verb: string) => (n > 0 ? `${n} selected item${n === 1 ? "" : "s"} cannot be ${verb}.` : null);

  let blocked: string | null = null;
  if (!canReview) blocked = NO_REVIEW_PERMISSION;
  else if (count > BULK_LIMIT) blocked = `Select at most ${BULK_LIMIT} items for one bulk decision.`;
  else if (pending) blocked = "A bulk decision is still running.";
  const approveBlocked = blocked ?? cannot(notApprovable, "approved");
  const rejectBlocked = blocked ?? cannot(notRejectable, "rejected");
  const reasons = [...new Set([approveBlocked, rejectBlocked].filter((r): r is string => r !== null))].join(" ");

  return (
    <div
      data-testid="bulk-bar"
      className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3"
      role="group"
      aria-label="Bulk decisions"
    >
      <div className="flex items-center gap-2">
        <input
          id={allId}
          type="checkbox"
          className="size-4 accent-blue-700"
          checked={allSelected}
          ref={(box) => {
            if (box) box.indeterminate = count > 0 && !allSelected;
          }}
          disabled={items.length === 0}
          onChange={(event) => onSelectAll(event.target.checked)}
        />
        <label htmlFor={allId} className="text-sm text-slate-900">
          Select all loaded items
        </label>
      </div>
      <span data-testid="selected-count" className="text-sm font-medium text-slate-800" aria-live="polite">
        {count} selected
      </span>
      <div className="flex flex-wrap gap-2 sm:ml-auto">
        <button
          type="button"
          className={buttonClass("approve")}
          disabled={count === 0 || approveBlocked !== null}
          aria-describedby={count > 0 && approveBlocked ? reasonId : undefined}
          onClick={() => onDecide("approve")}
        >
          Approve selected
        </button>
        <button
          type="button"
          className={buttonClass("reject")}
          disabled={count === 0 || rejectBlocked !== null}
          aria-describedby={count > 0 && rejectBlocked ? reasonId : undefined}
          onClick={() => onDecide("reject")}
        >
          Reject selected
        </button>
        <button type="button" className={buttonClass("secondary")} disabled={count === 0} onClick={onClear}>
          Clear selection
        </button>
      </div>
      {count > 0 && reasons ? (
        <p id={reasonId} className="w-full text-xs text-slate-700">
          {reasons}
        </p>
      ) : null}
    </div>
  );
}
