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
 * Per connector at most FIRST_ATTEMPTS_PER_CONNECTOR attempts run at once; a delivery that waited
 * longer than MAX_WAIT_MS for its turn (a slow or hanging endpoint) goes to the job runner instead,
 * where the function's own concurrency limits apply.
 */
export const FIRST_ATTEMPTS_PER_CONNECTOR = 8;
const MAX_WAIT_MS = 20_000;
/**
 * Deliveries are loaded together as they are dispatched (one statement for the batch, batched.ts);
 * an attempt that starts within PRELOAD_FRESH_MS of that uses the row as loaded, a later one (or
 * any in a lane where an attempt failed: the connector may have been turned off) loads it again.
 * A success frees its slot when the response is in, and is recorded in a batch with others; a
 * failure keeps its slot until it is recorded.
 */
const PRELOAD_FRESH_MS = 1000;

interface Waiting extends ConnectorDeliveryData {
  since: number;
  preloaded: Promise<LoadedDelivery | null>;
}

interface Lane {
  running: number;
  waiting: Waiting[];
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

function pump(connectorId: string): void {
  const lane = lanes().get(connectorId);
  if (!lane) return;
  const overdue: Waiting[] = [];
  while (lane.running < FIRST_ATTEMPTS_PER_CONNECTOR && lane.waiting.length > 0) {
    const next = lane.waiting.shift() as Waiting;
    if (performance.now() - next.since > MAX_WAIT_MS) {
      overdue.push(next);
      continue;
    }
    lane.running++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      lane.running--;
      pump(connectorId);
    };
    const fresh = !lane.failed && performance.now() - next.since <= PRELOAD_FRESH_MS;
    void attemptFirst(next, free, fresh ? next.preloaded : undefined)
      .then((ok) => {
        if (!ok) lane.failed = true;
      })
      .finally(free);
  }
  if (lane.running === 0 && lane.waiting.length === 0) lanes().delete(connectorId);
  if (overdue.length > 0) void handOff(overdue);
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

async function handOff(deliveries: readonly ConnectorDeliveryData[]): Promise<void> {
  try {
    await withTransaction(sqlPool(), (client) => handOffDeliveries(client, deliveries));
    await kickOutbox();
  } catch (error) {
    console.error(`[sieve] connector deliveries could not be queued (the sweep retries): ${(error as Error).message}`);
  }
}
