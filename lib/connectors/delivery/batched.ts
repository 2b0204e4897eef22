import type pg from "pg";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { loadDeliveries, type LoadedDelivery } from "./load";
import {
  recordSuccess,
  recordSuccesses,
  type SavedAttempt,
  type SuccessInput,
  type SuccessRecord,
} from "./store";

/**
 * Batching of the first attempts' database work (first-attempts.ts): the loads of deliveries that
 * start together, and the records of successes that end together, are each one statement, so a
 * burst of deliveries costs a few round trips and commits instead of two per delivery. A call joins
 * the next batch while `maxInFlight` batches are running, else starts one at once (an idle server
 * adds no wait). Loads allow two batches at once (an attempt waits for its load); records one: a
 * success has freed its slot already, so its record may wait, and the batches grow under load.
 */
const MAX_BATCH = 500;

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
 * recordSuccesses for a batch; when it fails as a whole (a deadlock with a multi-row update
 * elsewhere, a delivery deleted meanwhile) each success is recorded on its own.
 */
function recordBatch(db: Queryable, inputs: SuccessInput[]): Promise<SavedAttempt[]> {
  return recordSuccesses(db, inputs).catch(() => Promise.all(inputs.map((i) => recordSuccess(db, i.record, i.lastSuccessAt))));
}

/** recordSuccess (store.ts), batched with the successes that end at the same time. */
export function recordSuccessBatched(record: SuccessRecord, lastSuccessAt: Date | null): Promise<SavedAttempt> {
  const record1 = processSingleton("connectorDeliverySuccesses", () =>
    batcher<SuccessInput, SavedAttempt>(1, (inputs) => recordBatch(sqlPool(), inputs)),
  );
  return record1({ record, lastSuccessAt });
}
