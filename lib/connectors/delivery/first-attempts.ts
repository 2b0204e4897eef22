import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import { kickOutbox } from "@/lib/jobs/outbox";
import { handOffDeliveries, type ConnectorDeliveryData } from "../delivery-jobs";
import { attemptDelivery } from "./attempt";
import { unchangedSince } from "./connector-changes";
import type { LoadedDelivery } from "./load";

/**
 * First attempts, in the dispatching process. A delivery's first attempt is made right after the
 * dispatcher commits it, here, instead of through a job-runner run of its own: a run costs several
 * database writes and a call of our serve endpoint, which would cap delivery near 100 events/s
 * (bench/events.ts). Only a delivery that needs more (its first attempt failed) is handed to the
 * Inngest function `deliver-to-connector`, which owns every later attempt, the retry schedule and the
 * disable rule, and picks up the first attempt's recorded outcome (attempts are idempotent through
 * the database). Nothing is lost in a crash: the sweep (queueUnattemptedDeliveries) hands deliveries
 * never attempted after a minute to the job runner.
 *
 * Per connector (a lane) at most FIRST_ATTEMPTS_PER_CONNECTOR attempts run at once; a delivery that
 * waits MAX_WAIT_MS for its turn (a slow or hanging endpoint) goes to the job runner instead, where
 * the function's own concurrency limits apply. A lane with waiting deliveries keeps a timer for the
 * oldest one's deadline, so they move on even when no slot ever frees.
 */
export const FIRST_ATTEMPTS_PER_CONNECTOR = 8;
export const MAX_WAIT_MS = 20_000;
/**
 * A delivery as the dispatcher inserted it: with the connector and event an attempt needs, and the
 * connector-changes stamp taken before that read. An attempt uses `loaded` while the connector is
 * unchanged since (connector-changes.ts: enabled, target, secrets, subscriptions, failure run are
 * announced by the database) and no attempt of its lane failed; otherwise it reads the delivery
 * again (batched.ts). A success frees its slot when the response is in, and is recorded in a batch
 * with others; a failure keeps its slot until it is recorded and handed off.
 */
export interface DispatchedDelivery extends ConnectorDeliveryData {
  loaded: LoadedDelivery | null;
  stamp: number | null;
}

interface Waiting extends DispatchedDelivery {
  since: number;
}

interface Lane {
  running: number;
  /** Oldest first (`since` never decreases). */
  waiting: Waiting[];
  /** Armed while deliveries wait: fires at the oldest one's deadline (or earlier; it re-arms). */
  timer?: NodeJS.Timeout;
  /** An attempt failed: later attempts load their delivery afresh. */
  failed: boolean;
}

const lanes = () => processSingleton("connectorFirstAttempts", () => new Map<string, Lane>());

/** Starts the first attempts of freshly dispatched deliveries (does not wait for them). */
export function startFirstAttempts(deliveries: readonly DispatchedDelivery[]): void {
  const now = performance.now();
  const touched = new Set<string>();
  for (const delivery of deliveries) {
    let lane = lanes().get(delivery.connectorId);
    if (!lane) lanes().set(delivery.connectorId, (lane = { running: 0, waiting: [], failed: false }));
    lane.waiting.push({ ...delivery, since: now });
    touched.add(delivery.connectorId);
  }
  for (const connectorId of touched) pump(connectorId);
}

/** Hands overdue deliveries off, starts attempts in free slots, and keeps the lane's timer right. */
function pump(connectorId: string): void {
  const lane = lanes().get(connectorId);
  if (!lane) return;
  const now = performance.now();
  let overdue = 0;
  while (overdue < lane.waiting.length && now - lane.waiting[overdue]!.since >= MAX_WAIT_MS) overdue++;
  if (overdue > 0) void handOff(lane.waiting.splice(0, overdue));
  while (lane.running < FIRST_ATTEMPTS_PER_CONNECTOR && lane.waiting.length > 0) start(connectorId, lane, lane.waiting.shift()!);

  const oldest = lane.waiting[0];
  if (!oldest) {
    clearTimeout(lane.timer);
    lane.timer = undefined;
    if (lane.running === 0) lanes().delete(connectorId);
  } else if (!lane.timer) {
    lane.timer = setTimeout(() => {
      lane.timer = undefined;
      pump(connectorId);
    }, oldest.since + MAX_WAIT_MS - now);
    lane.timer.unref();
  }
}

function start(connectorId: string, lane: Lane, next: Waiting): void {
  lane.running++;
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    lane.running--;
    pump(connectorId);
  };
  const current = !lane.failed && unchangedSince(connectorId, next.stamp);
  void attemptFirst(next, free, current ? (next.loaded ?? undefined) : undefined)
    .then((ok) => {
      if (!ok) lane.failed = true;
    })
    .finally(free);
}

async function attemptFirst(
  delivery: ConnectorDeliveryData,
  onSent: () => void,
  preloaded: LoadedDelivery | undefined,
): Promise<boolean> {
  try {
    const outcome = await attemptDelivery(delivery.deliveryId, 1, { onSent, batched: true, preloaded });
    if (!outcome.done) await handOff([delivery]);
    return outcome.status === "succeeded";
  } catch (error) {
    // The database failed: the sweep hands the delivery to the job runner later.
    console.error(`[sieve] connector delivery ${delivery.deliveryId}: first attempt failed: ${(error as Error).message}`);
    return false;
  }
}

/**
 * Queues deliveries for the job runner. The outbox relay is kicked, not awaited: its send to the
 * job runner (retried while it fails) must not hold a lane's slot.
 */
async function handOff(deliveries: readonly ConnectorDeliveryData[]): Promise<void> {
  try {
    await withTransaction(sqlPool(), (client) => handOffDeliveries(client, deliveries));
    void kickOutbox();
  } catch (error) {
    console.error(`[sieve] connector deliveries could not be queued (the sweep retries): ${(error as Error).message}`);
  }
}
