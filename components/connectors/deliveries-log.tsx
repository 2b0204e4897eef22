"use client";

import { useState } from "react";
import type { PortalConnector } from "@/lib/portal/types";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { connectorErrorText } from "./connector-errors";
import { DeliveryRow, replayState } from "./delivery-row";
import { DELIVERIES_PAGE_SIZE, useDeliveries, useReplayDelivery } from "./hooks";
import { OutcomeMessage, type Outcome } from "./outcome";

/** A connector's deliveries, newest first, a page at a time, with replay. */
export function DeliveriesLog({ projectId, connector, canWrite }: { projectId: string; connector: PortalConnector; canWrite: boolean }) {
  const [pageIndex, setPageIndex] = useState(0);
  const deliveries = useDeliveries(projectId, connector.id, pageIndex);
  const replay = useReplayDelivery(projectId);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const onReplay = (deliveryId: string) => {
    setOutcome(null);
    replay.mutate(
      { connectorId: connector.id, deliveryId },
      {
        onSuccess: () => {
          setPageIndex(0);
          setOutcome({ ok: true, text: "Replay queued: a new delivery of the same event is at the top of the log." });
        },
        onError: (error) => setOutcome({ ok: false, text: `Could not replay: ${connectorErrorText(error)}` }),
      },
    );
  };

  const total = deliveries.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / DELIVERIES_PAGE_SIZE));
  return (
    <section aria-label={`Deliveries of ${connector.name}`} data-testid="deliveries-log" className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-900">Deliveries {deliveries.data ? <span className="font-normal text-slate-700">({total})</span> : null}</h3>
      <OutcomeMessage outcome={outcome} />
      {deliveries.isPending ? (
        <Spinner label="Loading deliveries…" />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} title="Could not load the deliveries" onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.items.length === 0 ? (
        <EmptyState title="No deliveries yet">Events of the chosen types will appear here{canWrite ? ", or send a test message" : ""}.</EmptyState>
      ) : (
        <>
          <ul className="rounded-md border border-slate-300 bg-white px-3">
            {deliveries.data.items.map((delivery) => (
              <DeliveryRow
                key={delivery.id}
                delivery={delivery}
                replay={replayState(delivery, connector.enabled, canWrite)}
                replaying={replay.isPending}
                onReplay={() => onReplay(delivery.id)}
              />
            ))}
          </ul>
          {pages > 1 ? (
            <nav aria-label="Deliveries pages" className="flex items-center gap-2 text-sm text-slate-800">
              <button type="button" className={buttonClass("secondary")} disabled={pageIndex === 0} onClick={() => setPageIndex(pageIndex - 1)}>
                Newer
              </button>
              <span>
                Page {pageIndex + 1} of {pages}
              </span>
              <button type="button" className={buttonClass("secondary")} disabled={!deliveries.data.hasMore} onClick={() => setPageIndex(pageIndex + 1)}>
                Older
              </button>
            </nav>
          ) : null}
        </>
      )}
    </section>
  );
}
