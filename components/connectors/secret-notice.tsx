"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClass } from "@/components/portal/styles";

/**
 * A signing secret, shown once (after creation or rotation): the server never shows it again, so
 * the notice says so, offers a copy button and stays until dismissed. Focus moves here so a
 * keyboard or screen-reader user meets it at once.
 */
export function SecretNotice({ connectorName, secret, rotated, onDismiss }: { connectorName: string; secret: string; rotated: boolean; onDismiss: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => box.current?.focus(), [secret]);
  const copy = async () => {
    await navigator.clipboard?.writeText(secret).then(() => setCopied(true), () => setCopied(false));
  };
  return (
    <div ref={box} tabIndex={-1} role="region" aria-label="Signing secret" data-testid="secret-notice" className="space-y-2 rounded-lg border border-green-300 bg-green-50 p-4 text-sm text-green-950">
      <p className="font-semibold">
        {rotated ? `New signing secret of ${connectorName}` : `${connectorName} was created`} — copy the secret now
      </p>
      <p>
        Sieve shows it only this once. Receivers verify each delivery with it (Standard Webhooks).
        {rotated ? " The previous secret keeps signing for a grace period, so receivers can switch over." : ""}
      </p>
      <code data-testid="secret-value" className="block overflow-x-auto rounded border border-green-300 bg-white p-2 font-mono text-xs break-all text-slate-900">
        {secret}
      </code>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={buttonClass("secondary")} onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={onDismiss}>
          I have stored it
        </button>
        <span role="status">{copied ? "Copied." : ""}</span>
      </div>
    </div>
  );
}
