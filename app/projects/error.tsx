"use client";

import Link from "next/link";
import { buttonClass } from "@/components/portal/styles";

/** Unexpected failures while rendering a portal page (data errors are shown by the views themselves). */
export default function ProjectsError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String((error as Error & { digest?: string }).digest ?? "") : "";
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-12">
      <div role="alert" className="rounded-lg border border-red-300 bg-red-50 p-6 text-red-900">
        <h1 className="text-xl font-semibold">Something went wrong</h1>
        <p className="mt-2 text-sm">This page could not be shown. Try again, or go back to your projects.</p>
        {digest ? <p className="mt-2 font-mono text-xs">Reference: {digest}</p> : null}
        <div className="mt-4 flex gap-3">
          <button type="button" onClick={() => retry()} className={buttonClass("primary")}>
            Try again
          </button>
          <Link href="/projects" className={buttonClass("secondary")}>
            Back to projects
          </Link>
        </div>
      </div>
    </main>
  );
}
