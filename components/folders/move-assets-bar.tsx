"use client";

import { useId, useState, type FormEvent } from "react";
import { buttonClass } from "@/components/portal/styles";
import { FolderPicker } from "./folder-picker";

/** The keyboard path for moving assets: rows ticked in the table, a destination, and Move. */
export function MoveAssetsBar({
  count,
  current,
  options,
  pending,
  onMove,
}: {
  count: number;
  current: string;
  options: { id: string; label: string }[];
  pending: boolean;
  onMove: (destination: string) => void;
}) {
  const pickerId = useId();
  const [destination, setDestination] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (destination) onMove(destination);
  };
  return (
    <form onSubmit={submit} aria-label="Move selected assets" className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3">
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
