"use client";

import type { PortalDelivery } from "@/lib/portal/types";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";

const STATUS_TONE = { pending: "info", succeeded: "success", failed: "danger", cancelled: "neutral" } as const;

/**
 * What the Replay button says: absent for test messages (they carry no event; send a new test) and
 * for read-only members; disabled with the reason while the connector is off.
 */
export type ReplayState = { kind: "hidden" } | { kind: "blocked"; reason: string } | { kind: "ready" };

export function replayState(delivery: PortalDelivery, connectorEnabled: boolean, canWrite: boolean): ReplayState {
  if (!canWrite || delivery.eventId === null) return { kind: "hidden" };
  if (!connectorEnabled) return { kind: "blocked", reason: "Turn the connector back on to replay." };
  return { kind: "ready" };
}

/** One delivery: what it carried, its status, and every attempt (status code, latency, error). */
export function DeliveryRow({ delivery, replay, replaying, onReplay }: { delivery: PortalDelivery; replay: ReplayState; replaying: boolean; onReplay: () => void }) {
  const what = delivery.eventType ?? "Test message";
  const hintId = `replay-hint-${delivery.id}`;
  return (
    <li data-testid="delivery" data-delivery-id={delivery.id} className="space-y-2 border-t border-slate-200 py-3 first:border-t-0">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
        <span className="font-medium text-slate-900">{what}</span>
        {delivery.replayOf ? <span className="text-xs text-slate-700">(replay)</span> : null}
        <span className="text-xs text-slate-700">{formatDateTime(delivery.createdAt)}</span>
        {replay.kind === "hidden" ? null : (
          <button
            type="button"
            className={buttonClass("secondary", "ml-auto")}
            disabled={replay.kind === "blocked" || replaying}
            aria-describedby={replay.kind === "blocked" ? hintId : undefined}
            onClick={onReplay}
          >
            Replay
          </button>
        )}
      </div>
      {replay.kind === "blocked" ? (
        <p id={hintId} className="text-xs text-slate-700">
          {replay.reason}
        </p>
      ) : null}
      {delivery.status === "pending" && delivery.nextAttemptAt ? (
        <p className="text-xs text-slate-700">Next attempt {formatDateTime(delivery.nextAttemptAt)}</p>
      ) : null}
      {delivery.log.length === 0 ? (
        <p className="text-xs text-slate-700">No attempt yet.</p>
      ) : (
        <div tabIndex={0} role="region" aria-label="Attempts" className="overflow-x-auto">
          <table className="w-full min-w-[28rem] text-left text-xs">
            <caption className="sr-only">Attempts of this delivery</caption>
            <thead className="text-slate-700">
              <tr>
                <th scope="col" className="py-1 pr-3 font-medium">Attempt</th>
                <th scope="col" className="py-1 pr-3 font-medium">Started</th>
                <th scope="col" className="py-1 pr-3 font-medium">Status code</th>
                <th scope="col" className="py-1 pr-3 font-medium">Latency</th>
                <th scope="col" className="py-1 font-medium">Error</th>
              </tr>
            </thead>
            <tbody className="text-slate-900">
              {delivery.log.map((attempt) => (
                <tr key={attempt.attempt} data-testid="attempt" className="align-top">
                  <td className="py-1 pr-3">{attempt.attempt}</td>
                  <td className="py-1 pr-3 whitespace-nowrap">{formatDateTime(attempt.startedAt)}</td>
                  <td className="py-1 pr-3">{attempt.statusCode ?? "none"}</td>
                  <td className="py-1 pr-3 whitespace-nowrap">{attempt.latencyMs} ms</td>
                  <td className="py-1 break-words">{attempt.error ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}
