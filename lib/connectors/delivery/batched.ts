import type pg from "pg";
import { processSingleton, singletonGetter } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { loadDeliveries, type LoadedDelivery } from "./load";
import { recordSuccess, recordSuccesses, type SavedAttempt, type SuccessInput, type SuccessRecord } from "./store";

/**
 * Batching of the first attempts' database work (first-attempts.ts): the loads of deliveries that
 * start together, and the records of successes that end together, are each one statement, so a
 * burst of deliveries costs a few round trips and commits instead of two per delivery.
 *
 * Loads: a call joins the next batch while two batches are running, else starts one at once (an
 * idle server adds no wait; an attempt waits for its load).
 *
 * Records of successes: one batch at a time, and a batch waits to gather: it starts once
 * GATHER_MIN successes wait, or GATHER_MS after the first of them. A success has freed its lane's
 * slot already, so nothing waits for its record but the deliveries log (a success shows there some
 * 40 ms after its attempt), while each statement costs the database a commit and a round trip
 * besides its rows. Measured on 2 cores (bench/events.ts): ~60 µs of PostgreSQL CPU per delivery in
 * batches of 10, 0.05–0.07 ms (all of PostgreSQL's work per delivery) in batches of 64 gathered for
 * 10 ms, 0.04–0.05 ms in batches of up to 256 gathered for 40 ms, which also cut the server's CPU
 * per delivery by ~12 % (fewer statements to send and wait for); 500 / 100 ms did no better. A crash
 * before the record loses nothing: the delivery's pass is still noted, and the sweep writes and
 * sends it again (passes.ts; the receiver deduplicates on webhook-id).
 */
const MAX_BATCH = 500;
export const GATHER_MIN = 256;
export const GATHER_MS = 40;

type Queryable = Pick<pg.PoolClient, "query">;

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

interface Batcher<I, O> {
  (item: I): Promise<O>;
}

function batcher<I, O>(maxInFlight: number, run: (items: I[]) => Promise<O[]>): Batcher<I, O> {
  const queue: Pending<I, O>[] = [];
  let running = 0;
  const flush = () => {
    while (running < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      running++;
      run(batch.map((p) => p.item))
        .then(
          (results) => batch.forEach((p, i) => p.resolve(results[i] as O)),
          (error: unknown) => batch.forEach((p) => p.reject(error)),
        )
        .finally(() => {
          running--;
          flush();
        });
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running < maxInFlight) queueMicrotask(flush); // gather what starts in this tick
    });
}

/** Loads attempt 1 of deliveries, batched (null: the delivery or its connector was deleted). */
export function loadFirstAttempt(deliveryId: string): Promise<LoadedDelivery | null> {
  const load = processSingleton("connectorDeliveryLoads", () =>
    batcher<string, LoadedDelivery | null>(2, async (ids) => {
      const loaded = await loadDeliveries(sqlPool(), ids, 1);
      return ids.map((id) => loaded.get(id) ?? null);
    }),
  );
  return load(deliveryId);
}

/**
 * A success waiting for its record: the attempt's own object (attempt.ts), told the outcome once
 * its batch is written. `recorded(null)`: the attempt was recorded before (or the delivery is gone).
 */
export interface QueuedSuccess extends SuccessInput {
  recorded(saved: SavedAttempt): void;
  recordFailed(error: unknown): void;
}

interface SuccessQueue {
  waiting: QueuedSuccess[];
  /** When the first of `waiting` was queued. */
  since: number;
  /** The size of the batch being written; 0 when none is (one batch at a time). */
  writing: number;
  timer: NodeJS.Timeout | undefined;
}

const successQueue = singletonGetter<SuccessQueue>("connectorDeliverySuccesses", () => ({ waiting: [], since: 0, writing: 0, timer: undefined }));

/** Queues a success's record (recordSuccess, store.ts) for the next batch. */
export function queueSuccess(success: QueuedSuccess): void {
  const queue = successQueue();
  if (queue.waiting.length === 0) queue.since = performance.now();
  queue.waiting.push(success);
  if (queue.writing === 0) scheduleRecords(queue);
}

/** Starts a batch when one is due, or arms the timer for when it will be. */
function scheduleRecords(queue: SuccessQueue): void {
  if (queue.waiting.length === 0) return;
  const waited = performance.now() - queue.since;
  if (queue.waiting.length >= GATHER_MIN || waited >= GATHER_MS) {
    clearTimeout(queue.timer);
    queue.timer = undefined;
    void recordWaiting(queue);
  } else {
    queue.timer ??= setTimeout(onGathered, GATHER_MS - waited, queue);
  }
}

/** Successes not recorded yet: waiting for their batch, or in the batch being written. */
export function unrecordedSuccesses(): number {
  const queue = successQueue();
  return queue.waiting.length + queue.writing;
}

/** Writes the waiting successes now rather than gathering more (shutdown: drainFirstAttempts). */
export function flushSuccesses(): void {
  const queue = successQueue();
  if (queue.writing > 0 || queue.waiting.length === 0) return;
  clearTimeout(queue.timer);
  queue.timer = undefined;
  void recordWaiting(queue);
}

function onGathered(queue: SuccessQueue): void {
  queue.timer = undefined;
  if (queue.writing === 0) scheduleRecords(queue);
}

/**
 * Records a batch (recordSuccesses). When it fails as a whole (a deadlock with a multi-row update
 * elsewhere, a delivery deleted meanwhile) each success is recorded on its own, and hears its own
 * outcome.
 */
async function recordWaiting(queue: SuccessQueue): Promise<void> {
  const batch = queue.waiting.splice(0, MAX_BATCH); // never empty: callers check
  queue.writing = batch.length;
  queue.since = performance.now();
  const db: Queryable = sqlPool();
  try {
    const saved = await recordSuccesses(db, batch).catch(() => null);
    if (saved) {
      for (let i = 0; i < batch.length; i++) (batch[i] as QueuedSuccess).recorded(saved[i] ?? null);
    } else {
      await Promise.all(
        batch.map((success) =>
          recordSuccess(db, success, success.lastSuccessAt).then(
            (one) => success.recorded(one),
            (error: unknown) => success.recordFailed(error),
          ),
        ),
      );
    }
  } finally {
    queue.writing = 0;
    scheduleRecords(queue);
  }
}

/** recordSuccess (store.ts), batched with the successes that end about the same time. */
export function recordSuccessBatched(record: SuccessRecord, lastSuccessAt: Date | null): Promise<SavedAttempt> {
  return new Promise<SavedAttempt>((resolve, reject) => queueSuccess({ ...record, lastSuccessAt, recorded: resolve, recordFailed: reject }));
}
