"use client";

import { buttonClass } from "@/components/portal/styles";

/** The confirm and Cancel pair under each folder form; the confirm says what is happening while pending. */
export function FormButtons({
  label,
  pendingLabel,
  pending,
  disabled = false,
  danger = false,
  onConfirm,
  onCancel,
}: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  disabled?: boolean;
  danger?: boolean;
  /** Absent: the confirm button submits its form. */
  onConfirm?: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="flex flex-wrap gap-2">
      <button type={onConfirm ? "button" : "submit"} className={buttonClass(danger ? "reject" : "primary")} disabled={disabled || pending} onClick={onConfirm}>
        {pending ? pendingLabel : label}
      </button>
      <button type="button" className={buttonClass("secondary")} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
