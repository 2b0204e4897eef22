"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { errorMessage, isSessionExpired, PortalFetchError } from "./portal-fetch";
import { buttonClass } from "./styles";


export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <div role="status" className="flex items-center gap-2 py-6 text-sm text-slate-700">
      <span
        aria-hidden="true"
        className="inline-block size-5 animate-spin rounded-full border-2 border-slate-400 border-t-blue-700"
      />
      <span>{label}</span>
    </div>
  );
}

/** A failed load: the route's message, a way back in when the session ended, and a retry. */
export function ErrorState({ error, onRetry, title = "Could not load this" }: { error: unknown; onRetry?: () => void; title?: string }) {
  const pathname = usePathname();
  const expired = isSessionExpired(error);
  const notFound = error instanceof PortalFetchError && error.status === 404;
  return (
    <div role="alert" data-testid="error-state" className="rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900">
      <p className="font-semibold">{expired ? "Your session has ended" : title}</p>
      <p className="mt-1">{expired ? "Sign in again to continue reviewing." : errorMessage(error)}</p>
      <div className="mt-3 flex flex-wrap gap-2">
        {expired ? (
          <Link className={buttonClass("primary")} href={`/login?callbackUrl=${encodeURIComponent(pathname)}`}>
            Sign in again
          </Link>
        ) : notFound ? (
          <Link className={buttonClass("secondary")} href="/projects">
            Back to projects
          </Link>
        ) : onRetry ? (
          <button type="button" className={buttonClass("secondary")} onClick={onRetry}>
            Try again
          </button>
        ) : null}
      </div>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div data-testid="empty-state" className="rounded-md border border-dashed border-slate-400 bg-white p-8 text-center">
      <p className="font-semibold text-slate-900">{title}</p>
      {children ? <div className="mt-1 text-sm text-slate-700">{children}</div> : null}
    </div>
  );
}

/** Small inline label; the colour only repeats what the text already says. */
export function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: "neutral" | "danger" | "warning" | "success" | "info" }) {
  const tones = {
    neutral: "bg-slate-100 text-slate-800 border-slate-300",
    danger: "bg-red-50 text-red-900 border-red-300",
    warning: "bg-amber-50 text-amber-900 border-amber-300",
    success: "bg-green-50 text-green-900 border-green-300",
    info: "bg-blue-50 text-blue-900 border-blue-300",
  } as const;
  return <span className={`inline-flex items-center rounded border px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

export function formatDateTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A page the member's role does not open (the server checked; the navigation hides it too). */
export function NotAllowed({ what }: { what: string }) {
  return (
    <div role="alert" data-testid="not-allowed" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <p className="font-semibold">Your role does not allow this</p>
      <p className="mt-1">{what} Ask a project admin if you need it.</p>
    </div>
  );
}
