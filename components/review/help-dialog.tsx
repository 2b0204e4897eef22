"use client";

import { useEffect, useId, useRef } from "react";
import { buttonClass } from "@/components/portal/styles";
import { QUEUE_SHORTCUTS } from "./use-queue-keyboard";

/**
 * The keyboard help. A native modal <dialog>: the browser keeps focus inside while it is open,
 * closes it on Escape, and we hand focus back to where it was when it closes.
 */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid="help-dialog"
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-slate-300 bg-white p-6 text-slate-900 shadow-xl"
      onClose={() => {
        onClose();
        // Focus back on the row or button that opened the help (if it still exists).
        if (returnFocus.current?.isConnected) returnFocus.current.focus();
      }}
    >
      <h2 id={titleId} className="text-lg font-semibold">
        Keyboard shortcuts
      </h2>
      <p className="mt-1 text-sm text-slate-700">Shortcuts work anywhere in the queue except while typing in a field.</p>
      <table className="mt-4 w-full text-left text-sm">
        <thead>
          <tr className="border-b border-slate-300">
            <th scope="col" className="py-1 pr-4 font-semibold">
              Key
            </th>
            <th scope="col" className="py-1 font-semibold">
              Action
            </th>
          </tr>
        </thead>
        <tbody>
          {QUEUE_SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.key} className="border-b border-slate-200">
              <td className="py-1.5 pr-4">
                <kbd className="rounded border border-slate-400 bg-slate-100 px-1.5 py-0.5 font-mono text-xs">{shortcut.key}</kbd>
              </td>
              <td className="py-1.5">{shortcut.action}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog" className="mt-5 flex justify-end">
        <button type="submit" className={buttonClass("primary")} autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
