"use client";

import { useId, useState } from "react";
import type { AssetDetail, ReviewRequest } from "@/lib/portal/types";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { approveBlockedReason, rejectBlockedReason } from "@/components/review/decision-rules";
import { useBlockedReasons } from "@/components/review/blocked-reasons";
import { useReviewDecision } from "./hooks";

const DONE = { approve: "Approved", reject: "Rejected" } as const;

/** Approve / Reject with an optional note, through the single review route. */
export function ReviewControls({ projectId, detail, canReview }: { projectId: string; detail: AssetDetail; canReview: boolean }) {
  const review = useReviewDecision(projectId);
  const [note, setNote] = useState("");
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const noteId = useId();
  const { item } = detail;
  const approveBlocked = approveBlockedReason(item, canReview);
  const rejectBlocked = rejectBlockedReason(item, canReview);
  const blocked = useBlockedReasons(approveBlocked, rejectBlocked);

  const decide = (decision: ReviewRequest["decision"]) => {
    setResult(null);
    review.mutate(
      { assetId: item.asset.id, decision, note },
      {
        onSuccess: (answer) => {
          setNote("");
          setResult({ ok: true, text: `${DONE[decision]}.${answer.inQueue ? " It is still in the review queue." : ""}` });
        },
        onError: (error) => setResult({ ok: false, text: `Could not ${decision}: ${errorMessage(error)}` }),
      },
    );
  };

  return (
    <div className="space-y-3" data-testid="review-controls">
      {item.asset.rejectionNote ? (
        <p className="text-sm text-slate-800">
          <span className="font-medium">Current note:</span> {item.asset.rejectionNote}
        </p>
      ) : null}
      <div className="space-y-1">
        <label htmlFor={noteId} className={labelClass}>
          Note (optional)
        </label>
        <textarea
          id={noteId}
          rows={2}
          maxLength={2000}
          value={note}
          onChange={(event) => setNote(event.target.value)}
          className={inputClass}
          placeholder="Why this decision; kept with the decision's event"
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonClass("approve")}
          disabled={approveBlocked !== null || review.isPending}
          aria-describedby={blocked.approveDescribedBy}
          onClick={() => decide("approve")}
        >
          Approve
        </button>
        <button
          type="button"
          className={buttonClass("reject")}
          disabled={rejectBlocked !== null || review.isPending}
          aria-describedby={blocked.rejectDescribedBy}
          onClick={() => decide("reject")}
        >
          Reject
        </button>
      </div>
      {blocked.reasons("text-xs text-slate-700")}
      {review.isPending ? <p className="text-sm text-slate-800">Saving…</p> : null}
      {/* Kept in the page so screen readers hear the outcome (live regions must exist before they change). */}
      <div role="status" data-testid="review-result" className={result?.ok ? "rounded-md border border-green-300 bg-green-50 p-2 text-sm text-green-900" : ""}>
        {result?.ok ? result.text : null}
      </div>
      {result && !result.ok ? (
        <p role="alert" data-testid="review-error" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          {result.text}
        </p>
      ) : null}
    </div>
  );
}
