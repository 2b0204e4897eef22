"use client";

import Link from "next/link";

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
          <button type="button" onClick={() => retry()} className="rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800">
            Try again
          </button>
          <Link href="/projects" className="rounded-md border border-slate-400 bg-white px-3 py-1.5 text-sm font-medium text-slate-900">
            Back to projects
          </Link>
        </div>
      </div>
    </main>
  );
}
