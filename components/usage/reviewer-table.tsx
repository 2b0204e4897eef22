import { EmptyState } from "@/components/portal/ui";
import type { ReviewerThroughput } from "@/lib/usage/usage-types";
import { formatDuration } from "./format";

/** People's decisions in the window, per reviewer (API-key decisions on one line of their own). */
export function ReviewerTable({ reviewers }: { reviewers: ReviewerThroughput[] }) {
  if (reviewers.length === 0) {
    return <EmptyState title="No reviewer decisions in this window">Decisions made in the review queue or through the API appear here.</EmptyState>;
  }
  return (
    // Focusable so a keyboard can scroll the table sideways on a narrow screen.
    <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-label="Reviewer throughput table">
      <table className="w-full text-left text-sm" data-testid="reviewer-table">
        <thead className="bg-slate-100">
          <tr>
            <th scope="col" className="px-2 py-1">Reviewer</th>
            <th scope="col" className="px-2 py-1 text-right">Decisions</th>
            <th scope="col" className="px-2 py-1 text-right">Approved</th>
            <th scope="col" className="px-2 py-1 text-right">Rejected</th>
            <th scope="col" className="px-2 py-1 text-right">Per active day</th>
            <th scope="col" className="px-2 py-1 text-right">Median upload → decision</th>
          </tr>
        </thead>
        <tbody>
          {reviewers.map((reviewer) => (
            <tr key={reviewer.userId ?? "api-keys"} className="border-t border-slate-200">
              <th scope="row" className="px-2 py-1 font-medium">{reviewer.name}</th>
              <td className="px-2 py-1 text-right tabular-nums">{reviewer.decisions}</td>
              <td className="px-2 py-1 text-right tabular-nums">{reviewer.approved}</td>
              <td className="px-2 py-1 text-right tabular-nums">{reviewer.rejected}</td>
              <td className="px-2 py-1 text-right tabular-nums">{(reviewer.decisions / Math.max(1, reviewer.activeDays)).toFixed(1)}</td>
              <td className="px-2 py-1 text-right tabular-nums">{formatDuration(reviewer.medianSecondsToDecision)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
