import type { NewEvent } from "@/lib/events/record";
import type { ConnectorFailures } from "./store";

/**
 * When a failed attempt turns its connector off: at once on HTTP 410 Gone, or when the connector
 * has failed `disableAfterFailures` times in a row AND has been failing for `disableAfterFailingMs`
 * (a burst of failures during a short outage never turns it off). Turning off records one
 * `connector.failing` event, in the same transaction, under the connector's row lock, so concurrent
 * deliveries count every failure and the event is recorded once.
 */
export interface DisableRule {
  disableAfterFailures: number;
  disableAfterFailingMs: number;
}

export interface FailureRun {
  consecutiveFailures: number;
  failingSince: Date;
  /** Why the connector is turned off by this failure, or null when it stays on. */
  disableReason: string | null;
}

export function failureRun(locked: ConnectorFailures, gone: boolean, rule: DisableRule): FailureRun {
  const consecutiveFailures = locked.consecutiveFailures + 1;
  const failingSince = locked.failingSince ?? locked.now;
  const failingMs = locked.now.getTime() - failingSince.getTime();
  let disableReason: string | null = null;
  if (locked.enabled && gone) {
    disableReason = "The endpoint answered HTTP 410 Gone, which asks for no more deliveries.";
  } else if (locked.enabled && consecutiveFailures >= rule.disableAfterFailures && failingMs >= rule.disableAfterFailingMs) {
    disableReason = `${consecutiveFailures} delivery attempts in a row failed over ${describeDuration(failingMs)}.`;
  }
  return { consecutiveFailures, failingSince, disableReason };
}

export function describeDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

export interface FailingConnector {
  id: string;
  projectId: string;
  name: string;
  type: string;
}

/** The `connector.failing` event: exactly the facts connector-id, -name, -type, consecutive-failures, last-error. */
export function connectorFailingEvent(connector: FailingConnector, run: FailureRun, lastError: string | null): NewEvent {
  return {
    projectId: connector.projectId,
    type: "connector.failing",
    title: `Connector "${connector.name}" was turned off`,
    description: [
      run.disableReason,
      "Sieve stopped delivering events to it. Fix the receiver, turn the connector back on, and replay the deliveries it missed.",
    ]
      .filter(Boolean)
      .join(" "),
    userId: null,
    asset: null,
    facts: [
      { key: "connector-id", value: connector.id },
      { key: "connector-name", value: connector.name },
      { key: "connector-type", value: connector.type },
      { key: "consecutive-failures", value: run.consecutiveFailures },
      { key: "last-error", value: lastError },
    ],
  };
}
