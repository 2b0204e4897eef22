"use client";

import type { PortalEvent } from "@/lib/portal/types";
import { Badge, formatDateTime } from "@/components/portal/ui";

function factValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** The asset's events, newest first as the route sends them: what happened, when, and the facts. */
export function EventHistory({ events }: { events: PortalEvent[] }) {
  if (events.length === 0) return <p className="text-sm text-slate-800">No events recorded for this asset.</p>;
  return (
    <ol className="space-y-3" data-testid="event-history">
      {events.map((event) => (
        <li key={event.id} data-testid="event" data-event-type={event.type} className="rounded-md border border-slate-300 bg-white p-3">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium text-slate-900">{event.title}</span>
            <code className="rounded bg-slate-100 px-1 text-xs text-slate-800">{event.type}</code>
            {event.severity === "high" ? <Badge tone="danger">High severity</Badge> : null}
            <time className="ml-auto text-sm text-slate-700" dateTime={new Date(event.createdAt).toISOString()}>
              {formatDateTime(event.createdAt)}
            </time>
          </div>
          {event.description ? <p className="mt-1 text-sm text-slate-800">{event.description}</p> : null}
          {event.facts.length > 0 ? (
            <details className="mt-2 text-sm">
              <summary className="cursor-pointer text-blue-800">Details</summary>
              <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
                {event.facts.map((fact) => (
                  <div key={fact.key} className="contents">
                    <dt className="font-medium text-slate-900">{fact.key}</dt>
                    <dd className="break-all text-slate-800">{factValue(fact.value)}</dd>
                  </div>
                ))}
              </dl>
            </details>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
