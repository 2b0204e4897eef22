"use client";

import { useEffect, useMemo, useState } from "react";
import type { InboxEvent } from "@/lib/portal/types";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass } from "@/components/portal/styles";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { EventRow } from "./event-row";
import { EMPTY_FILTERS, isFiltered, type InboxFilters } from "./filters-model";
import { useInbox, useMarkEvents, useUnreadCount, type MarkRequest } from "./hooks";
import { InboxFiltersForm } from "./inbox-filters";
import { SelectionBar } from "./selection-bar";
import { useArrivals } from "./use-arrivals";

const plural = (n: number) => `${n} event${n === 1 ? "" : "s"}`;

export const NO_MARK_PERMISSION = "Your role can read events but not mark them read or unread (that needs the events:write permission).";

/** The project's events inbox: newest first, filtered, polled for new events, marked read or unread. */
export function EventInbox({ projectId, canMark }: { projectId: string; canMark: boolean }) {
  const [filters, setFilters] = useState<InboxFilters>(EMPTY_FILTERS);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  /** A refused mark: what was tried (the title) and the route's error (message, or "sign in again"). */
  const [failure, setFailure] = useState<{ title: string; error: unknown } | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const inbox = useInbox(projectId, filters);
  const unread = useUnreadCount(projectId);
  const mark = useMarkEvents(projectId);

  // Polled pages can overlap at their edges while events arrive; show each event once.
  const events = useMemo(() => {
    const seen = new Set<string>();
    const list: InboxEvent[] = [];
    for (const event of inbox.data?.pages.flatMap((page) => page.events) ?? []) {
      if (!seen.has(event.id)) list.push(event);
      seen.add(event.id);
    }
    return list;
  }, [inbox.data]);
  const ids = useMemo(() => (inbox.data ? events.map((event) => event.id) : undefined), [inbox.data, events]);
  const { arrived, latest } = useArrivals(ids, JSON.stringify(filters));
  useEffect(() => {
    if (latest) setStatus(`${plural(latest.count)} arrived; marked New at the top.`);
  }, [latest]);
  // Only what is still on screen counts as selected (a filter or a mark can take events away).
  const selectedIds = events.filter((event) => selected.has(event.id)).map((event) => event.id);

  const run = (request: MarkRequest, done: (updated: number) => string, failed: string) => {
    setFailure(null);
    mark.mutateAsync(request).then(
      ({ updated }) => setStatus(done(updated)),
      (error: unknown) => setFailure({ title: `${failed}; nothing was changed`, error }),
    );
  };
  const markSelected = (read: boolean) => {
    run({ eventIds: selectedIds, read }, (n) => `${plural(n)} marked ${read ? "read" : "unread"}.`, `Could not mark the selection ${read ? "read" : "unread"}`);
    setSelected(new Set());
  };
  const markOne = (event: InboxEvent, read: boolean) =>
    run({ eventIds: [event.id], read }, () => `“${event.title}” marked ${read ? "read" : "unread"}.`, `Could not mark “${event.title}” ${read ? "read" : "unread"}`);
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = inbox;
  const count = unread.data?.unread;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Events</h1>
          <p className="text-sm text-slate-700" data-testid="unread-summary">
            {count === undefined ? "Counting unread events…" : count === 0 ? "No unread events." : `${plural(count)} unread, ${unread.data?.unreadHigh ?? 0} of high severity.`}
          </p>
        </div>
        {canMark ? (
          <button
            type="button"
            className={buttonClass("primary")}
            disabled={mark.isPending || count === 0}
            onClick={() => run({ all: true }, (n) => `${plural(n)} marked read.`, "Could not mark all events read")}
          >
            Mark all read
          </button>
        ) : null}
      </div>

      {canMark ? null : (
        <p data-testid="no-mark-permission" className="rounded-md border border-slate-300 bg-white p-3 text-sm text-slate-800">
          {NO_MARK_PERMISSION} Ask a project admin if you need it.
        </p>
      )}
      {failure ? <ErrorState error={failure.error} title={failure.title} /> : null}
      {/* Always mounted (a live region must exist before it speaks); takes no room while silent. */}
      <p role="status" data-testid="events-status" className={status ? "text-sm text-slate-800" : "sr-only"}>
        {status}
      </p>

      <InboxFiltersForm
        filters={filters}
        onChange={(next) => {
          setFilters(next);
          setSelected(new Set());
          setStatus(null);
        }}
      />
      {canMark && events.length > 0 ? (
        <SelectionBar
          loaded={events.length}
          selected={selectedIds.length}
          pending={mark.isPending}
          onSelectAll={(all) => setSelected(all ? new Set(events.map((event) => event.id)) : new Set())}
          onMark={markSelected}
        />
      ) : null}

      {inbox.isPending ? (
        <Spinner label="Loading events…" />
      ) : inbox.isError && events.length === 0 ? (
        <ErrorState error={inbox.error} onRetry={() => void inbox.refetch()} title="Could not load the events" />
      ) : events.length === 0 ? (
        <EmptyState title={isFiltered(filters) ? "No events match these filters" : "No events yet"}>
          {isFiltered(filters)
            ? "Change or reset the filters to see more."
            : "Uploads, moderation decisions, failures and new members show up here as they happen."}
        </EmptyState>
      ) : (
        <>
          <ul aria-label="Events, newest first" data-testid="event-list" className="space-y-2">
            {events.map((event) => (
              <EventRow
                key={event.id}
                projectId={projectId}
                event={event}
                isNew={arrived.has(event.id)}
                canMark={canMark}
                selected={selected.has(event.id)}
                pending={mark.isPending}
                onToggleSelected={() => toggle(event.id)}
                onMark={(read) => markOne(event, read)}
              />
            ))}
          </ul>
          {inbox.isRefetchError ? (
            <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
              Could not check for new events: {errorMessage(inbox.error)} Sieve keeps trying; the list shows what was loaded.
            </p>
          ) : null}
          {inbox.isFetchNextPageError ? (
            <ErrorState error={inbox.error} onRetry={() => void fetchNextPage()} title="Could not load older events" />
          ) : null}
          <div className="flex flex-wrap items-center gap-3">
            {hasNextPage ? (
              <button type="button" className={buttonClass("secondary")} disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
                {isFetchingNextPage ? "Loading older events…" : "Load older events"}
              </button>
            ) : (
              <p className="text-sm text-slate-700">No older events.</p>
            )}
            <p className="text-sm text-slate-700">{plural(events.length)} shown</p>
          </div>
        </>
      )}
    </div>
  );
}
