import { singletonGetter } from "@/lib/core/singleton";
import { listen, type Listener } from "@/lib/db/listen";

/**
 * Which connectors changed since a moment, as far as this process has heard. A trigger NOTIFYs
 * `sieve_connectors` with a connector's id when it is created, when anything a delivery reads of it
 * changes, and when it is deleted (migrations 20261124100000_connector_change_notifications and
 * 20261129063505_connector_creation_notification). First attempts use a
 * delivery as the dispatcher read it only while its connector is unchanged since before that read;
 * while the listener is not up (or was down since), nothing counts as unchanged and they read again.
 */
interface State {
  listener?: Listener;
  /** Counts what was heard: every notification, and every loss of the connection. */
  seq: number;
  /** The seq of each connector's last change. */
  changed: Map<string, number>;
  /** The seq of the last loss of the connection: notifications before it may be missing. */
  lost: number;
}

const state = singletonGetter<State>("connectorChanges", () => ({ seq: 0, changed: new Map(), lost: 0 }));

/** Starts listening (once per process); returns the function that stops it. */
export function watchConnectorChanges(): () => Promise<void> {
  const s = state();
  s.listener ??= listen(
    "sieve_connectors",
    (connectorId) => {
      s.changed.set(connectorId, ++s.seq);
    },
    {
      onDown: () => {
        s.lost = ++s.seq;
        s.changed.clear();
      },
    },
  );
  return async () => {
    const listener = s.listener;
    s.listener = undefined;
    s.lost = ++s.seq;
    await listener?.close();
  };
}

/** A moment to compare with later, taken before connectors are read; null while not listening. */
export function connectorStamp(): number | null {
  const s = state();
  return s.listener?.listening() ? s.seq : null;
}

/** Whether nothing of the connector changed since `stamp` (and the listener stayed up). */
export function unchangedSince(connectorId: string, stamp: number | null): boolean {
  const s = state();
  return stamp !== null && s.listener?.listening() === true && s.lost <= stamp && (s.changed.get(connectorId) ?? 0) <= stamp;
}

/** Whether nothing at all was heard since `stamp`: no connector changed, and the listener stayed up. */
export function quietSince(stamp: number | null): boolean {
  const s = state();
  return stamp !== null && s.listener?.listening() === true && s.seq === stamp;
}
