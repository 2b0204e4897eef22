"use client";

import { useId } from "react";
import { buttonClass } from "@/components/portal/styles";

/** The /v1 bulk route's limit (lib/events/endpoints.ts markEventsReadEndpoint: 1–100 ids). */
export const MARK_LIMIT = 100;

/** Select the loaded events, and mark the selection read or unread. */
export function SelectionBar({
  loaded,
  selected,
  pending,
  onSelectAll,
  onMark,
}: {
  loaded: number;
  selected: number;
  pending: boolean;
  onSelectAll: (select: boolean) => void;
  onMark: (read: boolean) => void;
}) {
  const allId = useId();
  const reasonId = useId();
  const all = loaded > 0 && selected === loaded;
  const blocked = selected > MARK_LIMIT ? `Select at most ${MARK_LIMIT} events at once.` : null;
  const disabled = selected === 0 || pending || blocked !== null;
  return (
    <div role="group" aria-label="Selected events" className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3">
      <div className="flex items-center gap-2">
        <input
          id={allId}
          type="checkbox"
          className="size-4 accent-blue-700"
          checked={all}
          ref={(box) => {
            if (box) box.indeterminate = selected > 0 && !all;
          }}
          disabled={loaded === 0}
          onChange={(event) => onSelectAll(event.target.checked)}
        />
        <label htmlFor={allId} className="text-sm text-slate-900">
          Select all loaded events
        </label>
      </div>
      <span data-testid="selected-count" className="text-sm font-medium text-slate-800" aria-live="polite">
        {selected} selected
      </span>
      <div className="flex flex-wrap gap-2 sm:ml-auto">
        <button type="button" className={buttonClass("secondary")} disabled={disabled} aria-describedby={blocked ? reasonId : undefined} onClick={() => onMark(true)}>
          Mark selected read
        </button>
        <button type="button" className={buttonClass("secondary")} disabled={disabled} aria-describedby={blocked ? reasonId : undefined} onClick={() => onMark(false)}>
          Mark selected unread
        </button>
      </div>
      {blocked ? (
        <p id={reasonId} className="w-full text-xs text-slate-700">
          {blocked}
        </p>
      ) : null}
    </div>
  );
}
