"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useUpdatePreferences, usePreferences } from "@/components/portal/hooks";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { dismissBreakReminder, useBreakDismissedAt, useReviewedCount } from "./session-count";

/** "Reviewed this session: N", announced politely as it changes. */
export function ReviewedCounter() {
  const count = useReviewedCount();
  return (
    <p data-testid="reviewed-count" aria-live="polite" aria-atomic="true" className="text-sm font-medium text-slate-800">
      Reviewed this session: <span className="tabular-nums">{count}</span>
    </p>
  );
}

/** Suggests a pause every `breakReminderAfter` decisions (0 turns it off); dismissing resets the clock. */
export function BreakReminder() {
  const { breakReminderAfter } = usePreferences();
  const count = useReviewedCount();
  const dismissedAt = useBreakDismissedAt();
  // A dismissal from a longer earlier session must not silence this one (count restarts per tab).
  const since = dismissedAt > count ? 0 : dismissedAt;
  if (breakReminderAfter <= 0 || count - since < breakReminderAfter) return null;
  return (
    <div role="status" data-testid="break-reminder" className="flex flex-wrap items-center gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
      <p className="flex-1">
        You have reviewed {count} {count === 1 ? "item" : "items"} this session. Consider taking a short break: step away from the screen for a few minutes.
      </p>
      <button type="button" className={buttonClass("secondary")} onClick={() => dismissBreakReminder(count)}>
        Dismiss
      </button>
    </div>
  );
}

/**
 * Per-user review preferences (stored on the server, so they follow the reviewer between devices).
 * A disclosure panel: Escape anywhere or a click outside closes it, focus goes back to its button.
 */
export function ReviewSettings() {
  const [open, setOpen] = useState(false);
  const preferences = usePreferences();
  const update = useUpdatePreferences();
  const panelId = useId();
  const revealId = useId();
  const breakId = useId();
  const [breakDraft, setBreakDraft] = useState<string | null>(null);
  // Shown at once on click: the saved value arrives a moment later (and rolls back if refused).
  const [revealDraft, setRevealDraft] = useState<boolean | null>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (returnFocus: boolean) => {
      setOpen(false);
      if (returnFocus) toggleRef.current?.focus();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const active = document.activeElement;
      close(active === null || active === document.body || !!panelRef.current?.contains(active));
    };
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (target && !panelRef.current?.contains(target) && !toggleRef.current?.contains(target)) close(false);
    };
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, [open]);

  return (
    <div className="relative">
      <button
        ref={toggleRef}
        type="button"
        className={buttonClass("secondary")}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
      >
        Review settings
      </button>
      {open ? (
        <div
          ref={panelRef}
          id={panelId}
          data-testid="review-settings"
          className="mt-2 w-full space-y-4 rounded-lg border border-slate-300 bg-white p-4 shadow-md sm:absolute sm:right-0 sm:z-20 sm:w-80"
        >
          <div className="flex items-start gap-2">
            <input
              id={revealId}
              type="checkbox"
              className="mt-1 size-4 accent-blue-700"
              checked={revealDraft ?? preferences.revealMediaByDefault}
              onChange={(event) => {
                setRevealDraft(event.target.checked);
                update.mutate({ revealMediaByDefault: event.target.checked }, { onSettled: () => setRevealDraft(null) });
              }}
            />
            <label htmlFor={revealId} className="text-sm text-slate-900">
              Reveal media by default
              <span className="block text-xs text-slate-700">Off: pictures and video stay blurred and greyscale until you reveal each one.</span>
            </label>
          </div>
          <form
            className="space-y-1"
            onSubmit={(event) => {
              event.preventDefault();
              const value = Number(breakDraft ?? preferences.breakReminderAfter);
              if (Number.isInteger(value) && value >= 0) update.mutate({ breakReminderAfter: value }, { onSuccess: () => setBreakDraft(null) });
            }}
          >
            <label htmlFor={breakId} className={labelClass}>
              Break reminder after (decisions, 0 = never)
            </label>
            <div className="flex gap-2">
              <input
                id={breakId}
                type="number"
                min={0}
                max={10000}
                step={1}
                inputMode="numeric"
                className={inputClass}
                value={breakDraft ?? String(preferences.breakReminderAfter)}
                onChange={(event) => setBreakDraft(event.target.value)}
              />
              {/* Never disabled while saving: a disabled button drops the keyboard focus to the page. */}
              <button type="submit" className={buttonClass("primary")}>
                Save
              </button>
            </div>
          </form>
          <p className="text-xs text-slate-700" aria-live="polite">
            {update.isPending ? "Saving…" : update.isSuccess ? "Saved." : ""}
          </p>
          {update.isError ? (
            <p role="alert" className="text-sm text-red-800">
              Settings not saved: {errorMessage(update.error)}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
