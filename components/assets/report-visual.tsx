"use client";

import type { CategoryEntry, Qualifiers, QualifierKey, QualifierValue, Report } from "@/lib/moderation/report";
import { Badge } from "@/components/portal/ui";
import {
  CATEGORIES,
  CATEGORY_LABELS,
  formatScore,
  LIKELIHOOD_BAR,
  LIKELIHOOD_LABELS,
  NOT_EVALUATED_LABELS,
  qualifierLabel,
} from "./report-labels";

/** The stored report is JSON typed loosely by the database layer; accept it when it has the report's shape. */
export function asReport(value: unknown): Report | null {
  if (!value || typeof value !== "object") return null;
  const categories = (value as { categories?: unknown }).categories;
  if (!categories || typeof categories !== "object") return null;
  return CATEGORIES.every((category) => category in categories) ? (value as Report) : null;
}

function StatusBadge({ entry }: { entry: CategoryEntry }) {
  if (entry.status === "evaluated") return <Badge tone="success">Evaluated</Badge>;
  if (entry.status === "partial") return <Badge tone="warning">Partial</Badge>;
  return <Badge>Not evaluated</Badge>;
}

function QualifierList({ qualifiers }: { qualifiers: Qualifiers | undefined }) {
  const entries = Object.entries(qualifiers ?? {}) as [QualifierKey, QualifierValue | undefined][];
  const present = entries.filter((entry): entry is [QualifierKey, QualifierValue] => entry[1] !== undefined);
  if (present.length === 0) return null;
  return (
    <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-800" aria-label="Qualifiers" data-testid="qualifiers">
      {present.map(([key, value]) => (
        <li key={key}>
          <span className="font-medium">{qualifierLabel(key)}</span>:{" "}
          {value.status === "evaluated"
            ? `${LIKELIHOOD_LABELS[value.likelihood]} (${formatScore(value.score)})`
            : `not evaluated (${NOT_EVALUATED_LABELS[value.reason].toLowerCase()})`}
        </li>
      ))}
    </ul>
  );
}

/** One category: a bar as long as the score, the likelihood in words, the score in digits. */
function CategoryBar({ category, entry }: { category: (typeof CATEGORIES)[number]; entry: CategoryEntry }) {
  const label = CATEGORY_LABELS[category];
  return (
    <li data-testid="report-category" data-category={category} data-status={entry.status} className="py-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="w-40 font-medium text-slate-900">{label}</span>
        <StatusBadge entry={entry} />
        {entry.status !== "not-evaluated" ? (
          <span className="text-sm text-slate-800">
            {LIKELIHOOD_LABELS[entry.likelihood]} · <span className="tabular-nums">{formatScore(entry.score)}</span>
          </span>
        ) : (
          <span className="text-sm text-slate-800">{NOT_EVALUATED_LABELS[entry.reason]}</span>
        )}
      </div>
      {entry.status !== "not-evaluated" ? (
        <div
          role="meter"
          aria-label={`${label} score`}
          aria-valuemin={0}
          aria-valuemax={1}
          aria-valuenow={entry.score}
          aria-valuetext={`${LIKELIHOOD_LABELS[entry.likelihood]}, ${formatScore(entry.score)}`}
          className="mt-1.5 h-3 w-full overflow-hidden rounded-full border border-slate-300 bg-slate-100"
        >
          <div className={`h-full ${LIKELIHOOD_BAR[entry.likelihood]}`} style={{ width: `${Math.round(entry.score * 100)}%` }} />
        </div>
      ) : (
        // Same track, empty: the category is listed with the others but has no score to show.
        <div aria-hidden="true" className="mt-1.5 h-3 w-full rounded-full border border-dashed border-slate-400 bg-white" />
      )}
      {entry.status === "partial" ? (
        <p className="mt-1 text-xs text-slate-700">Judged by some, not all, of the classifiers that cover this category (one failed).</p>
      ) : null}
      <QualifierList qualifiers={entry.qualifiers} />
    </li>
  );
}

/** The moderation report as a readable visual: overall verdict, then one bar per category. */
export function ReportVisual({ report }: { report: Report }) {
  return (
    <div data-testid="report" className="space-y-3">
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-800">
        {report.flagged ? <Badge tone="danger">Flagged</Badge> : <Badge tone="success">Not flagged</Badge>}
        <span>
          Highest score: <span className="tabular-nums">{formatScore(report.score)}</span>
        </span>
      </p>
      <ul className="divide-y divide-slate-200" aria-label="Categories">
        {CATEGORIES.map((category) => (
          <CategoryBar key={category} category={category} entry={report.categories[category]} />
        ))}
      </ul>
      {report.notes !== null && report.notes !== undefined ? (
        <details className="text-sm">
          <summary className="cursor-pointer font-medium text-blue-800">Technical notes</summary>
          <pre className="mt-2 max-h-64 overflow-auto rounded bg-slate-100 p-3 text-xs text-slate-900">{JSON.stringify(report.notes, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}
