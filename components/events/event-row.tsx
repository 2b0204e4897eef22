"use client";

import Link from "next/link";
import { useId } from "react";
import { isEventType } from "@/lib/events/catalogue";
import type { InboxEvent } from "@/lib/portal/types";
import { buttonClass } from "@/components/portal/styles";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { TYPE_LABELS } from "./filters-model";

/** The asset's name as the event recorded it (its facts), for the link's text. */
function assetName(event: InboxEvent): string | null {
  const fact = event.facts.find((f) => f.key === "asset-name");
  return typeof fact?.value === "string" && fact.value !== "" ? fact.value : null;
}

/**
 * One event: unread state, severity and type in words, what happened, when, and its asset.
 * Without events:write (`canMark` false) the row has no checkbox and no mark button.
 */
export function EventRow({
  projectId,
  event,
  isNew,
  canMark,
  selected,
  pending,
  onToggleSelected,
  onMark,
}: {
  projectId: string;
  event: InboxEvent;
  isNew: boolean;
  canMark: boolean;
  selected: boolean;
  pending: boolean;
  onToggleSelected: () => void;
  onMark: (read: boolean) => void;
}) {
  const titleId = useId();
  const unread = event.readAt === null;
  const name = assetName(event);
  return (
    <li
      data-testid="event-row"
      data-event-id={event.id}
      data-event-type={event.type}
      data-unread={unread}
      aria-labelledby={titleId}
      className={`flex gap-3 rounded-lg border p-3 sm:p-4 ${unread ? "border-blue-300 bg-blue-50/60" : "border-slate-300 bg-white"}`}
    >
      {canMark ? (
        <input
          type="checkbox"
          className="mt-1 size-4 shrink-0 accent-blue-700"
          checked={selected}
          onChange={onToggleSelected}
          aria-label={`Select “${event.title}”`}
        />
      ) : null}
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          {unread ? <Badge tone="info">Unread</Badge> : <span className="sr-only">Read.</span>}
          {isNew ? <Badge tone="success">New</Badge> : null}
          {event.severity === "high" ? <Badge tone="danger">High severity</Badge> : <Badge>Low severity</Badge>}
          <span className="text-xs text-slate-700">{isEventType(event.type) ? TYPE_LABELS[event.type] : event.type}</span>
          <time className="text-xs text-slate-700 sm:ml-auto" dateTime={new Date(event.createdAt).toISOString()}>
            {formatDateTime(event.createdAt)}
          </time>
          {canMark ? (
            // Beside the time, so a row without an asset link does not spend a line on the button alone.
            <button
              type="button"
              className={buttonClass("ghost", "ml-auto sm:ml-0")}
              disabled={pending}
              onClick={() => onMark(unread)}
              aria-label={`${unread ? "Mark read" : "Mark unread"}: “${event.title}”`}
            >
              {unread ? "Mark read" : "Mark unread"}
            </button>
          ) : null}
        </div>
        <p id={titleId} className={`mt-1 break-words text-slate-900 ${unread ? "font-semibold" : "font-medium"}`}>
          {event.title}
        </p>
        {event.description ? <p className="mt-0.5 break-words text-sm text-slate-800">{event.description}</p> : null}
        {event.assetId ? (
          <p className="mt-1.5">
            <Link
              href={`/projects/${projectId}/assets/${event.assetId}`}
              className="break-all text-sm font-medium text-blue-800 underline underline-offset-2 hover:text-blue-950"
              data-testid="event-asset-link"
            >
              Open asset{name ? ` “${name}”` : ""}
            </Link>
          </p>
        ) : null}
      </div>
    </li>
  );
}
