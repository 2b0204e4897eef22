import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import { kickOutbox } from "@/lib/jobs/outbox";
import { handOffDeliveries, type ConnectorDeliveryData } from "../delivery-jobs";
import { attemptDelivery } from "./attempt";
import { loadFirstAttempt } from "./batched";
import type { LoadedDelivery } from "./store";

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
 * Deliveries are loaded together as they are dispatched (one statement for the batch, batched.ts);
 * an attempt that starts within PRELOAD_FRESH_MS of that uses the row as loaded, a later one (or
 * any in a lane where an attempt failed: the connector may have been turned off) loads it again.
 * Worth its keep: the delivery bench measured about 1230 events/s with it and 950 without (every
 * attempt loading its own row when it starts). A success frees its slot when the response is in,
 * and is recorded in a batch with others; a failure keeps its slot until it is recorded and handed
 * off.
 */
const PRELOAD_FRESH_MS = 1000;

interface Waiting extends ConnectorDeliveryData {
  since: number;
  preloaded: Promise<LoadedDelivery | null>;
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
export function startFirstAttempts(deliveries: readonly ConnectorDeliveryData[]): void {
  const now = performance.now();
  const touched = new Set<string>();
  for (const delivery of deliveries) {
    let lane = lanes().get(delivery.connectorId);
    if (!lane) lanes().set(delivery.connectorId, (lane = { running: 0, waiting: [], failed: false }));
    const preloaded = loadFirstAttempt(delivery.deliveryId);
    preloaded.catch(() => {}); // an attempt that uses it sees the error; a stale one loads again
    lane.waiting.push({ ...delivery, since: now, preloaded });
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
  while (lane.running < FIRST_ATTEMPTS_PER_CONNECTOR && lane.waiting.length > 0) start(connectorId, lane, lane.waiting.shift()!, now);

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

function start(connectorId: string, lane: Lane, next: Waiting, now: number): void {
  lane.running++;
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    lane.running--;
    pump(connectorId);
  };
  const fresh = !lane.failed && now - next.since <= PRELOAD_FRESH_MS;
  void attemptFirst(next, free, fresh ? next.preloaded : undefined)
    .then((ok) => {
      if (!ok) lane.failed = true;
    })
    .finally(free);
}

async function attemptFirst(
  delivery: ConnectorDeliveryData,
  onSent: () => void,
  preloaded: Promise<LoadedDelivery | null> | undefined,
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
