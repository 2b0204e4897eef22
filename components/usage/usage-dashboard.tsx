"use client";

import { useState } from "react";
import { ErrorState, Spinner } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { USAGE_WINDOW_DAYS, type ProjectUsage, type UsageWindow } from "@/lib/usage/usage-types";
import { DecisionsChart } from "./decisions-chart";
import { useUsage } from "./hooks";
import { ReviewerTable } from "./reviewer-table";

const STATUS_ORDER = ["uploading", "pending", "approved", "rejected", "error"] as const;

/** The usage page: allowance, assets, decisions per day and reviewers, for a chosen window. */
export function UsageDashboard({ projectId }: { projectId: string }) {
  const [days, setDays] = useState<UsageWindow>(30);
  const usage = useUsage(projectId, days);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold text-slate-900">Usage</h1>
        <fieldset className="flex items-center gap-1">
          <legend className="sr-only">Window</legend>
          {USAGE_WINDOW_DAYS.map((option) => (
            <button
              key={option}
              type="button"
              aria-pressed={option === days}
              className={buttonClass(option === days ? "primary" : "secondary")}
              onClick={() => setDays(option)}
            >
              Last {option} days
            </button>
          ))}
        </fieldset>
      </div>
      {usage.isPending ? (
        <Spinner label="Loading usage…" />
      ) : usage.isError ? (
        <ErrorState error={usage.error} onRetry={() => void usage.refetch()} title="Could not load usage" />
      ) : (
        <UsageReport usage={usage.data} />
      )}
    </div>
  );
}

function UsageReport({ usage }: { usage: ProjectUsage }) {
  const { allowance } = usage;
  const share = allowance.allowance > 0 ? Math.min(100, (allowance.used / allowance.allowance) * 100) : 100;
  const shareText = share > 0 && share < 1 ? "under 1%" : `${Math.round(share)}%`;
  return (
    <>
      <section className="grid gap-4 md:grid-cols-3" aria-label="Totals">
        <Card title="Uploads against the allowance">
          <p className="text-2xl font-semibold tabular-nums text-slate-900" data-testid="uploads-used">
            {allowance.used.toLocaleString()} <span className="text-base font-normal text-slate-700">of {allowance.allowance.toLocaleString()}</span>
          </p>
          <div className="mt-2 h-2 w-full overflow-hidden rounded-full bg-slate-200" aria-hidden="true">
            <div className={`h-full ${share >= 90 ? "bg-red-700" : "bg-blue-700"}`} style={{ width: `${Math.max(share, share > 0 ? 1 : 0)}%` }} />
          </div>
          <p className="mt-1 text-sm text-slate-700">{shareText} used</p>
          <p className="mt-2 text-sm text-slate-700">
            Counted across the owner&apos;s projects; {allowance.uploadsInProject.toLocaleString()} uploaded to this one.
            {allowance.limitReachedAt ? " The allowance is used up: new uploads are refused." : ""}
          </p>
        </Card>
        <Card title="Assets by status">
          <Counts counts={usage.assetsByStatus} order={STATUS_ORDER} testId="assets-by-status" />
          <p className="mt-2 text-sm text-slate-700" data-testid="awaiting-review">
            {usage.awaitingReview.toLocaleString()} waiting for a reviewer
          </p>
        </Card>
        <Card title="Assets by type">
          <Counts counts={usage.assetsByType} testId="assets-by-type" />
        </Card>
      </section>
      <section className="rounded-lg border border-slate-300 bg-white p-4 shadow-sm">
        <DecisionsChart days={usage.decisionsPerDay} />
      </section>
      <section className="rounded-lg border border-slate-300 bg-white p-4 shadow-sm" aria-labelledby="reviewers-heading">
        <h2 id="reviewers-heading" className="text-base font-semibold text-slate-900">
          Reviewer throughput, last {usage.windowDays} days
        </h2>
        <ReviewerTable reviewers={usage.reviewers} />
      </section>
    </>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-300 bg-white p-4 shadow-sm">
      <h2 className="text-sm font-semibold text-slate-800">{title}</h2>
      <div className="mt-2">{children}</div>
    </div>
  );
}

function Counts({ counts, order, testId }: { counts: Record<string, number>; order?: readonly string[]; testId: string }) {
  const names = order ? order.filter((name) => counts[name]) : Object.keys(counts).sort();
  if (names.length === 0) return <p className="text-sm text-slate-700">No assets yet.</p>;
  return (
    <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm" data-testid={testId}>
      {names.map((name) => (
        <div key={name} className="contents">
          <dt className="text-slate-800">{name}</dt>
          <dd className="text-right tabular-nums text-slate-900">{(counts[name] ?? 0).toLocaleString()}</dd>
        </div>
      ))}
    </dl>
  );
}
