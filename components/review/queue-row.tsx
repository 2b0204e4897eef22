"use client";

import Link from "next/link";
import { useId, type Ref } from "react";
import type { QueueItem, ReviewRequest } from "@/lib/portal/types";
import { MediaThumbnail } from "@/components/assets/media-viewer";
import { assetTypeLabel, CATEGORY_LABELS, formatScore, LIKELIHOOD_LABELS, REASON_LABELS } from "@/components/assets/report-labels";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { approveBlockedReason, rejectBlockedReason } from "./decision-rules";
import { useBlockedReasons } from "./blocked-reasons";
import { NoteForm } from "./note-form";

const REASON_TONES = { rejected: "danger", error: "warning", alerted: "info" } as const;

export interface QueueRowProps {
  projectId: string;
  item: QueueItem;
  /** The user's role holds assets:review. */
  canReview: boolean;
  focused: boolean;
  selected: boolean;
  revealed: boolean;
  noteOpen: boolean;
  rowRef: Ref<HTMLLIElement>;
  onFocusRow: () => void;
  onToggleSelected: () => void;
  onToggleReveal: () => void;
  onDecide: (decision: ReviewRequest["decision"], note?: string) => void;
  onOpenNote: () => void;
  onCloseNote: () => void;
}

/**
 * One queue item. The row itself takes focus (roving tabindex: only the focused row is in the Tab
 * order, so Tab moves into its controls instead of through every row).
 */
export function QueueRow(props: QueueRowProps) {
  const { projectId, item, focused, selected, revealed, noteOpen } = props;
  const { asset } = item;
  const nameId = useId();
  const approveBlocked = approveBlockedReason(item, props.canReview);
  const rejectBlocked = rejectBlockedReason(item, props.canReview);
  // Without review permission the queue says so once, above the list, not on every row.
  const blocked = useBlockedReasons(props.canReview ? approveBlocked : null, props.canReview ? rejectBlocked : null);

  return (
    <li
      ref={props.rowRef}
      data-testid="queue-row"
      data-asset-id={asset.id}
      aria-current={focused ? "true" : undefined}
      aria-labelledby={nameId}
      tabIndex={focused ? 0 : -1}
      onFocus={props.onFocusRow}
      className={`rounded-lg border bg-white p-3 shadow-sm ${focused ? "border-blue-700 ring-1 ring-blue-700" : "border-slate-300"}`}
    >
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <div className="flex items-start gap-3">
          <input
            type="checkbox"
            checked={selected}
            onChange={props.onToggleSelected}
            aria-label={`Select ${asset.name}`}
            className="mt-1 size-4 accent-blue-700"
          />
          <MediaThumbnail item={item} revealed={revealed} onToggleReveal={props.onToggleReveal} />
        </div>

        <div className="min-w-0 flex-1 space-y-1">
          <h3 id={nameId} className="truncate font-semibold text-slate-900">
            <Link
              href={`/projects/${projectId}/assets/${asset.id}`}
              className="text-blue-800 underline-offset-2 hover:underline"
              data-testid="queue-row-link"
            >
              {asset.name}
            </Link>
          </h3>
          <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
            {item.reason ? (
              <Badge tone={REASON_TONES[item.reason]}>{REASON_LABELS[item.reason]}</Badge>
            ) : (
              <Badge>Now {asset.status}</Badge>
            )}
            <Badge>{assetTypeLabel(asset.type)}</Badge>
            {item.topCategory ? (
              <span data-testid="top-category">
                {CATEGORY_LABELS[item.topCategory.category]}: {LIKELIHOOD_LABELS[item.topCategory.likelihood]} (
                {formatScore(item.topCategory.score)})
              </span>
            ) : (
              <span>No category judged</span>
            )}
            <span aria-hidden="true">·</span>
            <time dateTime={new Date(asset.createdAt).toISOString()}>{formatDateTime(asset.createdAt)}</time>
          </div>
          {asset.rejectionNote ? <p className="line-clamp-2 text-sm text-slate-800">Note: {asset.rejectionNote}</p> : null}
          {asset.safetyHold ? <p className="text-sm font-medium text-amber-900">Held for safety</p> : null}
        </div>

        <div className="flex flex-col gap-1 sm:items-end">
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={buttonClass("approve")}
              disabled={approveBlocked !== null}
              aria-describedby={blocked.approveDescribedBy}
              title={approveBlocked ?? undefined}
              onClick={() => props.onDecide("approve")}
            >
              Approve
            </button>
            <button
              type="button"
              className={buttonClass("reject")}
              disabled={rejectBlocked !== null}
              aria-describedby={blocked.rejectDescribedBy}
              title={rejectBlocked ?? undefined}
              onClick={() => props.onDecide("reject")}
            >
              Reject
            </button>
            <button
              type="button"
              className={buttonClass("secondary")}
              aria-expanded={noteOpen}
              disabled={rejectBlocked !== null && approveBlocked !== null}
              onClick={noteOpen ? props.onCloseNote : props.onOpenNote}
            >
              Note
            </button>
          </div>
          {blocked.reasons("max-w-xs text-xs text-slate-700")}
        </div>
      </div>

      {noteOpen ? (
        <NoteForm item={item} onCancel={props.onCloseNote} onSubmit={(decision, note) => props.onDecide(decision, note)} />
      ) : null}
    </li>
  );
}
