"use client";

import { useEffect, useId, useRef, useState } from "react";
import { buttonClass } from "@/components/portal/styles";

/**
 * A secret shown this one time (a new API key, an invitation link), with a copy button. Focus moves
 * here when it appears so a screen reader announces it; "Copied" is announced politely.
 */
export function SecretPanel({ title, secret, warning, onDone }: { title: string; secret: string; warning: string; onDone: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useEffect(() => heading.current?.focus(), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  };

  return (
    <section aria-labelledby={titleId} data-testid="secret-panel" className="space-y-3 rounded-md border border-green-300 bg-green-50 p-4 text-green-950">
      <h2 id={titleId} ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="text-sm font-medium">{warning}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="secret-value" className="min-w-0 flex-1 break-all rounded border border-green-300 bg-white px-2 py-1.5 font-mono text-sm text-slate-900">
          {secret}
        </code>
        <button type="button" className={buttonClass("primary")} onClick={copy}>
          Copy
        </button>
      </div>
      <p aria-live="polite" className="min-h-5 text-sm">
        {copied === "yes" ? "Copied" : copied === "failed" ? "Could not copy: select the text and copy it by hand." : ""}
      </p>
      <button type="button" className={buttonClass("secondary")} onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
