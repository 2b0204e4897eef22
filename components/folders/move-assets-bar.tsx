"use client";

import { useId, useState, type FormEvent } from "react";
import { buttonClass } from "@/components/portal/styles";
import { FolderPicker } from "./folder-picker";

/** The keyboard path for moving assets: the selection, a destination, and Move. */
export function MoveAssetsBar({
  count,
  allSelected,
  current,
  options,
  pending,
  onSelectAll,
  onMove,
}: {
  count: number;
  allSelected: boolean;
  current: string;
  options: { id: string; label: string }[];
  pending: boolean;
  onSelectAll: (on: boolean) => void;
  onMove: (destination: string) => void;
}) {
  const allId = useId();
  const pickerId = useId();
  const [destination, setDestination] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (destination) onMove(destination);
  };
  return (
    <form onSubmit={submit} aria-label="Move selected assets" className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3">
      <div className="flex min-h-9 items-center gap-2">
        <input
          id={allId}
          type="checkbox"
          className="size-4 accent-blue-700"
          checked={allSelected}
          ref={(box) => {
            if (box) box.indeterminate = count > 0 && !allSelected;
          }}
          onChange={(event) => onSelectAll(event.target.checked)}
        />
        <label htmlFor={allId} className="text-sm text-slate-900">
          Select all on this page
        </label>
      </div>
      <span data-testid="selected-count" className="pb-2 text-sm font-medium text-slate-800" aria-live="polite">
        {count} selected
      </span>
      <div className="min-w-56 flex-1">
        <FolderPicker id={pickerId} label="Move selected to…" value={destination} options={options} exclude={new Set([current])} onChange={setDestination} />
      </div>
      <button type="submit" className={buttonClass("primary")} disabled={count === 0 || !destination || destination === current || pending}>
        {pending ? "Moving…" : "Move"}
      </button>
    </form>
  );
}
