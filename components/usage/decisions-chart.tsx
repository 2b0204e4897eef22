"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DecisionDay } from "@/lib/usage/usage-types";

/** The series, in stacking order; colours are told apart by the legend's words too, never colour alone. */
export const DECISION_SERIES = [
  { key: "autoApproved", label: "Approved by the pipeline", color: "#15803d" },
  { key: "autoRejected", label: "Rejected by the pipeline", color: "#b91c1c" },
  { key: "autoError", label: "Failed in the pipeline", color: "#a16207" },
  { key: "reviewerApproved", label: "Approved by a reviewer", color: "#1d4ed8" },
  { key: "reviewerRejected", label: "Rejected by a reviewer", color: "#7e22ce" },
] as const satisfies readonly { key: keyof DecisionDay; label: string; color: string }[];

const shortDay = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/**
 * Decisions per UTC day as stacked bars (recharts; arrow keys move its tooltip from day to day), with the
 * same numbers as a table below for screen readers.
 */
export function DecisionsChart({ days }: { days: DecisionDay[] }) {
  return (
    <figure aria-labelledby="decisions-caption">
      <figcaption id="decisions-caption" className="text-base font-semibold text-slate-900">
        Decisions per day (UTC)
      </figcaption>
      <div className="mt-3 h-72 w-full" data-testid="decisions-chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={days} margin={{ top: 8, right: 8, bottom: 8, left: 0 }} title="Decisions per day, stacked by who decided and how" accessibilityLayer>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={shortDay} tick={{ fontSize: 12, fill: "#334155" }} minTickGap={16} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: "#334155" }} width={40} />
            <Tooltip labelFormatter={(day) => shortDay(String(day))} />
            <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
            {DECISION_SERIES.map((series) => (
              <Bar key={series.key} dataKey={series.key} name={series.label} stackId="decisions" fill={series.color} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-blue-800 underline-offset-2 hover:underline">Show the numbers as a table</summary>
        <DecisionsTable days={days} />
      </details>
    </figure>
  );
}

function DecisionsTable({ days }: { days: DecisionDay[] }) {
  return (
    // Focusable so a keyboard can scroll the table (WCAG 2.1.1).
    <div className="mt-2 max-h-72 overflow-auto" tabIndex={0} role="region" aria-label="Decisions per day as a table">
      <table className="w-full text-left text-sm" data-testid="decisions-table">
        <thead className="sticky top-0 bg-slate-100">
          <tr>
            <th scope="col" className="px-2 py-1">Day</th>
            {DECISION_SERIES.map((series) => (
              <th key={series.key} scope="col" className="px-2 py-1 text-right">{series.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.day} className="border-t border-slate-200">
              <th scope="row" className="px-2 py-1 font-normal">{day.day}</th>
              {DECISION_SERIES.map((series) => (
                <td key={series.key} className="px-2 py-1 text-right tabular-nums">{day[series.key]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
