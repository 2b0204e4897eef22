"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { QueueItem, ReviewBatch, ReviewRequest } from "@/lib/portal/types";
import { usePreferences } from "@/components/portal/hooks";
import { errorMessage } from "@/components/portal/portal-fetch";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { BulkBar } from "./bulk-bar";
import { approveBlockedReason, NO_REVIEW_PERMISSION, rejectBlockedReason } from "./decision-rules";
import { HelpDialog } from "./help-dialog";
import { useBulkReview, useQueue, useReviewDecision } from "./hooks";
import { QueueFiltersForm } from "./queue-filters";
import { activeFilterCount, EMPTY_FILTERS, type QueueFilters } from "./queue-filters-model";
import { QueueRow } from "./queue-row";
import { useQueueKeyboard } from "./use-queue-keyboard";
import { BreakReminder, ReviewedCounter, ReviewSettings } from "./wellbeing";

const PAST = { approve: "approved", reject: "rejected" } as const;

/** The focused row: its id, and its index so the next item takes its place once it is decided. */
interface Focus {
  id: string;
  index: number;
}

export function ReviewQueue({ projectId, projectName, canReview }: { projectId: string; projectName: string; canReview: boolean }) {
  const [filters, setFilters] = useState<QueueFilters>(EMPTY_FILTERS);
  const queue = useQueue(projectId, filters);
  const review = useReviewDecision(projectId);
  const bulk = useBulkReview(projectId);
  const preferences = usePreferences();

  const [focus, setFocus] = useState<Focus | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [revealOverrides, setRevealOverrides] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [noteFor, setNoteFor] = useState<string | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  const [alertText, setAlert] = useState<string | null>(null);
  const [bulkStatus, setBulkStatus] = useState<string | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  /** Set when j is pressed on the last loaded row: move on once the next page arrives. */
  const advanceAfter = useRef<string | null>(null);

  // Pages can overlap when the queue changes between fetches; show each asset once.
  const items = useMemo(() => {
    const seen = new Set<string>();
    const list: QueueItem[] = [];
    for (const page of queue.data?.pages ?? []) {
      for (const item of page.items) {
        if (!seen.has(item.asset.id)) list.push(item);
        seen.add(item.asset.id);
      }
    }
    return list;
  }, [queue.data]);

  // A decided (removed) focused item hands the focus to whatever now sits at its place.
  const focusedIndex = useMemo(() => {
    if (!focus || items.length === 0) return -1;
    const index = items.findIndex((item) => item.asset.id === focus.id);
    return index >= 0 ? index : Math.min(focus.index, items.length - 1);
  }, [focus, items]);
  const focusedItem = focusedIndex >= 0 ? items[focusedIndex] : undefined;
  const focusedId = focusedItem?.asset.id ?? null;

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = queue;

  const focusRow = useCallback((index: number) => {
    const item = items[index];
    if (!item) return;
    setFocus({ id: item.asset.id, index });
    rows.current.get(item.asset.id)?.focus();
  }, [items]);

  // When the focused item left the list (a decision), the row that took its place becomes the
  // focused one for good (so the item coming back after a refetch does not pull aria-current
  // away), and gets the keyboard focus if that was lost with the removed row, so j/k and Tab
  // carry on from there instead of from the top of the page.
  useEffect(() => {
    if (!focusedId || focus?.id === focusedId) return;
    setFocus({ id: focusedId, index: focusedIndex });
    const active = document.activeElement;
    if (active === null || active === document.body) rows.current.get(focusedId)?.focus();
  }, [focusedId, focusedIndex, focus]);

  // A page emptied by decisions while more exist: load on, so the list does not look finished.
  useEffect(() => {
    if (items.length === 0 && hasNextPage && !isFetchingNextPage && !queue.isError) void fetchNextPage();
  }, [items.length, hasNextPage, isFetchingNextPage, fetchNextPage, queue.isError]);

  // j on the last row asked for more: once the next page is in, move to its first item.
  useEffect(() => {
    const after = advanceAfter.current;
    if (!after) return;
    const index = items.findIndex((item) => item.asset.id === after);
    if (index >= 0 && index + 1 < items.length) {
      advanceAfter.current = null;
      focusRow(index + 1);
    } else if (!hasNextPage) {
      advanceAfter.current = null;
    }
  }, [items, hasNextPage, focusRow]);

  const isRevealed = (id: string) => revealOverrides.get(id) ?? preferences.revealMediaByDefault;

  const decide = (item: QueueItem, decision: ReviewRequest["decision"], note?: string) => {
    const blocked = decision === "approve" ? approveBlockedReason(item, canReview) : rejectBlockedReason(item, canReview);
    if (blocked) {
      setAlert(blocked);
      return;
    }
    setAlert(null);
    setNoteFor((current) => (current === item.asset.id ? null : current));
    setSelected((current) => {
      if (!current.has(item.asset.id)) return current;
      const next = new Set(current);
      next.delete(item.asset.id);
      return next;
    });
    // mutateAsync, not mutate(…, {onError}): with several decisions in flight React Query only
    // calls the per-call callbacks of the latest one, and every failure must be reported.
    review
      .mutateAsync({ assetId: item.asset.id, decision, note })
      .catch((error: unknown) => setAlert(`Could not ${decision} “${item.asset.name}”: ${errorMessage(error)} It was not changed.`));
  };

  const decideSelected = (decision: ReviewRequest["decision"]) => {
    const chosen = items.filter((item) => selected.has(item.asset.id));
    if (chosen.length === 0) return;
    const names = new Map(chosen.map((item) => [item.asset.id, item.asset.name]));
    setAlert(null);
    setSelected(new Set());
    setBulkStatus(`Applying ${decision} to ${chosen.length} items…`);
    const progress = (batch: ReviewBatch) => {
      const done = batch.counts.succeeded + batch.counts.failed;
      setBulkStatus(`Applying ${decision}: ${done} of ${batch.items.length} done…`);
    };
    bulk.mutateAsync({ assetIds: chosen.map((item) => item.asset.id), decision, onProgress: progress }).then(
      (batch) => {
        setBulkStatus(`${batch.counts.succeeded} of ${batch.items.length} ${PAST[decision]}.`);
        const failures = batch.items.filter((item) => item.status === "failed");
        if (failures.length > 0) {
          const details = failures.map((item) => `“${names.get(item.assetId) ?? item.assetId}” (${item.message ?? item.code ?? "failed"})`);
          setAlert(`${failures.length} could not be ${PAST[decision]} and were not changed: ${details.join("; ")}.`);
        }
      },
      (error: unknown) => {
        setBulkStatus(null);
        setAlert(`The bulk ${decision} failed: ${errorMessage(error)} The items are back in the queue.`);
      },
    );
  };

  const toggleSelected = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  useQueueKeyboard(
    {
      next: () => {
        if (items.length === 0) return;
        if (focusedIndex < 0) return focusRow(0);
        if (focusedIndex + 1 < items.length) return focusRow(focusedIndex + 1);
        focusRow(focusedIndex); // at the end: keep (and show) the focus while the next page loads
        if (hasNextPage && focusedId) {
          advanceAfter.current = focusedId;
          if (!isFetchingNextPage) void fetchNextPage();
        }
      },
      previous: () => focusRow(focusedIndex <= 0 ? 0 : focusedIndex - 1),
      approve: () => focusedItem && decide(focusedItem, "approve"),
      reject: () => focusedItem && decide(focusedItem, "reject"),
      note: () => {
        if (!focusedItem) return;
        const blocked = rejectBlockedReason(focusedItem, canReview) && approveBlockedReason(focusedItem, canReview);
        if (blocked) setAlert(blocked);
        else setNoteFor(focusedItem.asset.id);
      },
      toggleSelection: () => focusedId && toggleSelected(focusedId),
      help: () => setHelpOpen(true),
    },
    !helpOpen,
  );

  // Prefetch while the reviewer nears the end of what is loaded, so j rarely waits.
  useEffect(() => {
    if (focusedIndex >= 0 && focusedIndex >= items.length - 3 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [focusedIndex, items.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const selectedItems = items.filter((item) => selected.has(item.asset.id));
  const filtered = activeFilterCount(filters) > 0;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Review queue</h1>
          <p className="text-sm text-slate-700">{projectName}</p>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <ReviewedCounter />
          <button type="button" className={buttonClass("secondary")} onClick={() => setHelpOpen(true)} aria-keyshortcuts="?">
            Keyboard shortcuts
          </button>
          <ReviewSettings />
        </div>
      </div>

      <BreakReminder />

      {alertText ? (
        <div role="alert" data-testid="review-error" className="flex items-start gap-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <p className="flex-1">{alertText}</p>
          <button type="button" className="font-medium underline underline-offset-2" onClick={() => setAlert(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {bulkStatus ? (
        <p role="status" data-testid="bulk-status" className="text-sm text-slate-800">
          {bulkStatus}
        </p>
      ) : null}

      <QueueFiltersForm
        projectId={projectId}
        filters={filters}
        onChange={(next) => {
          setFilters(next);
          setFocus(null);
        }}
      />

      <BulkBar
        items={items}
        selectedItems={selectedItems}
        canReview={canReview}
        pending={bulk.isPending}
        onSelectAll={(all) => setSelected(all ? new Set(items.map((item) => item.asset.id)) : new Set())}
        onClear={() => setSelected(new Set())}
        onDecide={decideSelected}
      />

      <p className="text-sm text-slate-700">
        Press <kbd className="rounded border border-slate-400 bg-slate-100 px-1 font-mono">?</kbd> for keyboard shortcuts:{" "}
        <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> move, <kbd className="font-mono">a</kbd> approve,{" "}
        <kbd className="font-mono">r</kbd> reject.
      </p>
      {canReview ? null : (
        <p data-testid="no-review-permission" className="rounded-md border border-slate-300 bg-white p-3 text-sm text-slate-800">
          {NO_REVIEW_PERMISSION} You can look at the queue and open assets; ask a project admin to decide.
        </p>
      )}

      {queue.isPending ? (
        <Spinner label="Loading the queue…" />
      ) : queue.isError && items.length === 0 ? (
        <ErrorState error={queue.error} onRetry={() => void queue.refetch()} title="Could not load the queue" />
      ) : items.length === 0 ? (
        hasNextPage || isFetchingNextPage ? (
          <Spinner label="Loading more…" />
        ) : (
          <EmptyState title={filtered ? "No items match these filters" : "The queue is empty"}>
            {filtered ? "Change or reset the filters to see more." : "Nothing is waiting for review in this project."}
          </EmptyState>
        )
      ) : (
        <>
          <ul aria-label="Review queue items" data-testid="queue-list" className="space-y-3">
            {items.map((item, index) => (
              <QueueRow
                key={item.asset.id}
                projectId={projectId}
                item={item}
                canReview={canReview}
                focused={index === focusedIndex}
                selected={selected.has(item.asset.id)}
                revealed={isRevealed(item.asset.id)}
                noteOpen={noteFor === item.asset.id}
                rowRef={(element) => {
                  if (element) rows.current.set(item.asset.id, element);
                  else rows.current.delete(item.asset.id);
                }}
                onFocusRow={() => {
                  if (focus?.id !== item.asset.id) setFocus({ id: item.asset.id, index });
                }}
                onToggleSelected={() => toggleSelected(item.asset.id)}
                onToggleReveal={() => setRevealOverrides((current) => new Map(current).set(item.asset.id, !isRevealed(item.asset.id)))}
                onDecide={(decision, note) => decide(item, decision, note)}
                onOpenNote={() => setNoteFor(item.asset.id)}
                onCloseNote={() => {
                  setNoteFor(null);
                  rows.current.get(item.asset.id)?.focus();
                }}
              />
            ))}
          </ul>
          {queue.isFetchNextPageError ? (
            <ErrorState error={queue.error} onRetry={() => void fetchNextPage()} title="Could not load more items" />
          ) : null}
          <div className="flex items-center gap-3">
            {hasNextPage ? (
              <button type="button" className={buttonClass("secondary")} disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
                {isFetchingNextPage ? "Loading more…" : "Load more"}
              </button>
            ) : (
              <p className="text-sm text-slate-700">End of the queue.</p>
            )}
            <p className="text-sm text-slate-700" aria-live="polite">
              {items.length} item{items.length === 1 ? "" : "s"} loaded
            </p>
          </div>
        </>
      )}

      <HelpDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
