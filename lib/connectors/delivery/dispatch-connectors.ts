import { singletonGetter } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { connectorStamp, unchangedSince } from "./connector-changes";
import { CONNECTOR_COLUMNS, loadedConnector, type ConnectorRow, type LoadedDelivery } from "./load";

/**
 * The connectors of the dispatcher's deliveries, read once and kept while the database announces no
 * change of them (connector-changes.ts): a burst of events to one connector reads it once, not once
 * per pass. Each comes with the stamp taken before its read, which its deliveries carry: a first
 * attempt uses the connector as read only while nothing of it changed since (first-attempts.ts).
 * Its last success (a hint for recording, never announced) may be older than the row's.
 */
export type DispatchConnector = Pick<LoadedDelivery, "connector" | "connectorHealth">;

export interface StampedConnector {
  read: DispatchConnector;
  stamp: number | null;
}

export const SELECT_DISPATCH_CONNECTORS = `SELECT ${CONNECTOR_COLUMNS} FROM connectors c WHERE c.id = ANY ($1::uuid[])`;

/** More connectors than this in the cache: it starts again (deleted connectors leave their entries). */
const MAX_CACHED = 1000;

const cache = singletonGetter("dispatchConnectors", () => new Map<string, StampedConnector>());

/** The connectors `ids`, from the cache while unchanged, the others read now; a connector gone is absent. */
export async function dispatchConnectors(ids: Iterable<string>): Promise<Map<string, StampedConnector>> {
  const cached = cache();
  const found = new Map<string, StampedConnector>();
  const missing: string[] = [];
  for (const id of ids) {
    const entry = cached.get(id);
    if (entry && unchangedSince(id, entry.stamp)) found.set(id, entry);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const stamp = connectorStamp();
  const { rows } = await sqlPool().query<ConnectorRow>({ name: "sieve-dispatch-connectors", text: SELECT_DISPATCH_CONNECTORS, values: [missing] });
  if (cached.size + rows.length > MAX_CACHED) cached.clear();
  for (const row of rows) {
    const entry = { read: loadedConnector(row), stamp };
    found.set(row.connector_id, entry);
    if (stamp !== null) cached.set(row.connector_id, entry);
  }
  return found;
}
