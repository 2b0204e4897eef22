"use client";

import { buttonClass } from "@/components/portal/styles";

/** The end of a console form: what is wrong (announced), then submit and cancel. */
export function FormFooter({ problem, submitLabel, pendingLabel, pending, onCancel }: { problem: string | null; submitLabel: string; pendingLabel: string; pending: boolean; onCancel: () => void }) {
  return (
    <>
      {problem ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          {problem}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClass("primary")} disabled={pending}>
          {pending ? pendingLabel : submitLabel}
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}
