"use client";

import { useId, useState } from "react";
import type { QueueItem, ReviewRequest } from "@/lib/portal/types";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";

/**
 * The note opened with "n" (or the Note button): a decision with a note for one item. Enter
 * submits (it is a form), Escape cancels and hands focus back to the row.
 */
export function NoteForm({
  item,
  onSubmit,
  onCancel,
}: {
  item: QueueItem;
  onSubmit: (decision: ReviewRequest["decision"], note: string) => void;
  onCancel: () => void;
}) {
  const noteId = useId();
  const decisionId = useId();
  const [decision, setDecision] = useState<ReviewRequest["decision"]>("reject");
  const [note, setNote] = useState("");

  return (
    <form
      data-testid="note-form"
      className="mt-3 grid gap-3 rounded-md border border-slate-300 bg-slate-50 p-3 sm:grid-cols-[1fr_auto_auto]"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(decision, note);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onCancel();
        }
      }}
    >
      <div className="space-y-1">
        <label htmlFor={noteId} className={labelClass}>
          Note for {item.asset.name}
        </label>
        <input
          id={noteId}
          type="text"
          maxLength={2000}
          autoFocus
          value={note}
          onChange={(event) => setNote(event.target.value)}
          className={inputClass}
          placeholder="Why this decision (optional)"
        />
      </div>
      <div className="space-y-1">
        <label htmlFor={decisionId} className={labelClass}>
          Decision
        </label>
        <select
          id={decisionId}
          value={decision}
          onChange={(event) => setDecision(event.target.value as ReviewRequest["decision"])}
          className={inputClass}
        >
          <option value="reject">Reject</option>
          <option value="approve" disabled={!item.canApprove}>
            Approve
          </option>
        </select>
      </div>
      <div className="flex items-end gap-2">
        <button type="submit" className={buttonClass("primary")}>
          Submit note
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
