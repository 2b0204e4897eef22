"use client";

import { useEffect, useRef } from "react";

export interface QueueKeyHandlers {
  next: () => void;
  previous: () => void;
  approve: () => void;
  reject: () => void;
  note: () => void;
  toggleSelection: () => void;
  help: () => void;
}

/** Shortcuts shown in the help dialog, in the order listed there. */
export const QUEUE_SHORTCUTS: readonly { key: string; action: string }[] = [
  { key: "j", action: "Move to the next item" },
  { key: "k", action: "Move to the previous item" },
  { key: "a", action: "Approve the focused item" },
  { key: "r", action: "Reject the focused item" },
  { key: "n", action: "Write a note for the focused item (Enter submits, Escape cancels)" },
  { key: "x", action: "Select or unselect the focused item" },
  { key: "?", action: "Show this help (Escape closes it)" },
];

/** Typing in a field, or anywhere inside an open dialog, must never trigger a decision. */
function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest("dialog[open]")) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    // Checkboxes and buttons take no text: the queue's own selection checkboxes keep shortcuts working.
    return !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
  }
  return false;
}

/**
 * Review shortcuts on the whole page (j/k/a/r/n/x/?). Ignored with Ctrl/Alt/Meta (browser and
 * screen-reader shortcuts), while typing, while `enabled` is false, and for held-down decision keys
 * (auto-repeat must not approve a run of items).
 */
export function useQueueKeyboard(handlers: QueueKeyHandlers, enabled: boolean): void {
  // The latest handlers without re-subscribing the listener on every render.
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });

  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTypingTarget(event.target)) return;
      const h = latest.current;
      const actions: Record<string, { run: () => void; repeatable: boolean }> = {
        j: { run: h.next, repeatable: true },
        k: { run: h.previous, repeatable: true },
        a: { run: h.approve, repeatable: false },
        r: { run: h.reject, repeatable: false },
        n: { run: h.note, repeatable: false },
        x: { run: h.toggleSelection, repeatable: false },
        "?": { run: h.help, repeatable: false },
      };
      const action = actions[event.key];
      if (!action || (event.repeat && !action.repeatable)) return;
      event.preventDefault();
      action.run();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [enabled]);
}
