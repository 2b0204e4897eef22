import { inngest } from "@/inngest/client";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import type { Prisma } from "@/lib/db/generated/client";
import { PROCESS_ASSET_EVENT, processAssetData, processEventId, type ProcessAssetData } from "./events";

/**
 * The transactional outbox of the pipeline. An upload (or retry) writes its processing event into
 * `pipeline_outbox` in the same transaction as the asset, so the request never loses it; the relay
 * sends what is there with one `inngest.send()` per batch and deletes it in the same database
 * transaction. While a send is in flight new rows accumulate, so under load one HTTP call carries
 * many events. A failed send leaves the rows for the next attempt (kick, or the maintenance loop);
 * a send that arrived but whose delete did not commit is deduplicated by the event id.
 */
const BATCH = 100;
const RETRY_MS = 1000;

export interface OutboxRow {
  eventId: string;
  name: string;
  data: ProcessAssetData;
}

export function processOutboxRow(row: Parameters<typeof processAssetData>[0]): OutboxRow {
  const data = processAssetData(row);
  return { eventId: processEventId(data), name: PROCESS_ASSET_EVENT, data };
}

/** Inside a Prisma transaction (multipart completion, retry). */
export async function addToOutbox(tx: Prisma.TransactionClient, row: OutboxRow): Promise<void> {
  await tx.pipelineOutbox.create({ data: { eventId: row.eventId, name: row.name, data: { ...row.data } } });
}

interface Relay {
  running: boolean;
  again: boolean;
  retry?: NodeJS.Timeout;
}
const KEY = Symbol.for("sieve.outboxRelay");
function relay(): Relay {
  const store = globalThis as typeof globalThis & { [KEY]?: Relay };
  store[KEY] ??= { running: false, again: false };
  return store[KEY];
}

function sendBatch(): Promise<number> {
  return withTransaction(sqlPool(), async (client) => {
    // Losing this delete in a crash only means sending again (deduplicated by event id): no need
    // to wait for the WAL flush on the path of every queue=false upload.
    await client.query("SET LOCAL synchronous_commit = off");
    const { rows } = await client.query<{ event_id: string; name: string; data: Record<string, unknown> }>(
      `DELETE FROM pipeline_outbox WHERE id IN (SELECT id FROM pipeline_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING event_id, name, data`,
      [BATCH],
    );
    // The rows are deleted only if the send succeeds (a throw rolls the delete back).
    if (rows.length > 0) await inngest.send(rows.map((r) => ({ id: r.event_id, name: r.name, data: r.data })));
    return rows.length;
  });
}

/** Sends everything in the outbox now (coalescing concurrent kicks); failures retry in a second. */
export function kickOutbox(): Promise<void> {
  const state = relay();
  if (state.running) {
    state.again = true;
    return Promise.resolve();
  }
  state.running = true;
  clearTimeout(state.retry);
  return (async () => {
    try {
      do {
        state.again = false;
        while ((await sendBatch()) === BATCH);
      } while (state.again);
    } catch (error) {
      console.error(`[sieve] pipeline outbox: send failed, retrying: ${(error as Error).message}`);
      state.retry = setTimeout(() => void kickOutbox(), RETRY_MS);
      state.retry.unref();
    } finally {
      state.running = false;
    }
  })();
}
