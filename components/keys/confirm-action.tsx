"use client";

import { useEffect, useRef, useState } from "react";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass } from "@/components/portal/styles";

/**
 * A destructive action behind a confirm step: the first button asks, the confirm button (focused
 * when it appears) does it, "Keep" backs out. A refusal shows the route's message.
 */
export function ConfirmAction({
  label,
  confirmLabel,
  pendingLabel,
  question,
  groupLabel,
  pending,
  error,
  onConfirm,
}: {
  label: string;
  confirmLabel: string;
  pendingLabel: string;
  question: string;
  groupLabel: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  return (
    <div className="space-y-1">
      {confirming ? (
        <div role="group" aria-label={groupLabel} className="flex flex-wrap items-center gap-2 rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-950">
          <p className="basis-full">{question}</p>
          <button ref={confirmButton} type="button" className={buttonClass("reject")} disabled={pending} onClick={onConfirm}>
            {pending ? pendingLabel : confirmLabel}
          </button>
          <button type="button" className={buttonClass("secondary")} onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" className={buttonClass("secondary")} onClick={() => setConfirming(true)}>
          {label}
        </button>
      )}
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {errorMessage(error)}
        </p>
      ) : null}
    </div>
  );
}
