import { config } from "@/lib/core/config";
import { db, sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { listen, type Listener } from "@/lib/db/listen";
import { processSingleton } from "@/lib/core/singleton";
import { kickOutbox } from "@/lib/jobs/outbox";
import { INTERACTIVE_TYPES } from "./request";

/**
 * Hands assets to the pipeline (kicks the job outbox) and lets `queue=false` uploads wait for their
 * decision.
 * A decision is announced in-process and by NOTIFY (other processes), so a waiting request wakes
 * as soon as the decision commits, wherever it was made.
 */
export const DECISION_CHANNEL = "sieve_asset_decisions";

interface Registry {
  waiters: Map<string, Set<() => void>>;
  listener?: Listener;
}
const registry = () => processSingleton<Registry>("decisionWaiters", () => ({ waiters: new Map() }));

/** Wakes requests waiting in this process (the NOTIFY in the decision's transaction reaches the others). */
export function announceDecision(assetId: string): void {
  for (const wake of registry().waiters.get(assetId) ?? []) wake();
}

/**
 * After an upload completed (status `pending`, its processing event committed to the outbox):
 * kick the outbox relay and, for `queue=false` text and images, wait for the decision up to
 * SIEVE_SYNC_DECISION_TIMEOUT_MS. On timeout the asset is returned `pending` and its decision
 * arrives as events.
 */
export async function processAfterUpload(row: AssetRow): Promise<AssetRow> {
  if (row.status !== "pending") return row;
  void kickOutbox();
  if (row.queued || !INTERACTIVE_TYPES.has(row.type)) return row;
  return waitForDecision(row.id, config().pipeline.syncDecisionTimeoutMs);
}

/**
 * The asset unless it is still pending. Before a wake-up a plain status query answers (mostly
 * "pending"); once woken, the asset is read whole at once (mostly decided: one query, not two).
 */
async function readIfDecided(assetId: string, woken: boolean): Promise<AssetRow | null> {
  if (!woken) {
    const { rows } = await sqlPool().query<{ status: string }>(`SELECT status FROM assets WHERE id = $1`, [assetId]);
    if (rows[0]?.status === "pending") return null;
  }
  const asset = await db().asset.findUnique({ where: { id: assetId } });
  return asset?.status === "pending" ? null : asset;
}

function addWaiter(assetId: string, wake: () => void): () => void {
  const { waiters } = registry();
  const set = waiters.get(assetId) ?? new Set<() => void>();
  set.add(wake);
  waiters.set(assetId, set);
  return () => {
    set.delete(wake);
    if (set.size === 0 && waiters.get(assetId) === set) waiters.delete(assetId);
  };
}

/** The asset once decided (or as it is when the timeout passes). */
export async function waitForDecision(assetId: string, timeoutMs: number): Promise<AssetRow> {
  const reg = registry();
  reg.listener ??= listen(DECISION_CHANNEL, announceDecision);
  const deadline = Date.now() + timeoutMs;
  let wasWoken = false;
  for (;;) {
    // Register before reading, so a decision committed in between still wakes us.
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const remove = addWaiter(assetId, wake);
    let timer: NodeJS.Timeout | undefined;
    try {
      const decided = await readIfDecided(assetId, wasWoken);
      if (decided) return decided;
      const left = deadline - Date.now();
      if (left <= 0) break;
      // Without a working LISTEN connection, poll.
      const slice = reg.listener.listening() ? left : Math.min(left, 250);
      wasWoken = await Promise.race([woken.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), slice)))]);
    } finally {
      clearTimeout(timer);
      remove();
    }
  }
  return db().asset.findUniqueOrThrow({ where: { id: assetId } });
}
