import { config } from "@/lib/core/config";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import type { SqlRunner } from "@/lib/db/sql";
import { withTransaction } from "@/lib/db/transaction";
import { enqueueJobs, kickOutbox, type JobMessage } from "@/lib/jobs/outbox";
import type { LabelAssetData } from "./request";

/**
 * The assets whose labels are due (table label_queue), and the jobs that drain it.
 *
 * A decision that wants labels adds its asset here in its own transaction. Instead of a job per
 * asset (a burst of 1500 images made 1500 events, their batch buffer and run rows, and cost the
 * decisions ~10 % of their throughput), decisions within one LABELS_DUE_WINDOW_MS window share one
 * job: its id names the window, so each process sends it once per window and the runner keeps one.
 * The run sleeps until the window has ended (and DRAIN_GRACE_MS more, for the transactions that
 * queued an asset in it and had not committed yet), then drains the whole queue
 * (inngest/functions/label-assets.ts), so every asset queued in the window is seen. The job goes through the job outbox in the same
 * transaction, so a committed decision never loses its labelling; reconcileLabelQueue sends one
 * more when the queue has waited long (a lost event, or rows from before an upgrade).
 */
export const LABELS_DUE_EVENT = "sieve/labels.due";
export const LABELS_DUE_WINDOW_MS = 2000;
const DRAIN_GRACE_MS = 2000;

export interface LabelsDueData {
  /** When the run starts draining: after the window's end and the grace. */
  drainAt: number;
}

export const QUEUE_LABELLING = `INSERT INTO label_queue (asset_id, project_id, generation, sources, frames) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (asset_id) DO UPDATE SET generation = EXCLUDED.generation, sources = EXCLUDED.sources, frames = EXCLUDED.frames, queued_at = now()`;

export const TAKE_DUE_LABELS = `SELECT asset_id::text AS "assetId", project_id::text AS "projectId", generation, sources, frames,
         (extract(epoch FROM queued_at) * 1000)::float8 AS "queuedAt"
  FROM label_queue ORDER BY queued_at, asset_id LIMIT $1`;

/** Only the generation that was labelled: a newer decision's row stays. */
export const REMOVE_FROM_LABEL_QUEUE = `DELETE FROM label_queue WHERE asset_id = $1 AND generation = $2`;

export const OLDEST_QUEUED_LABELS = `SELECT extract(epoch FROM now() - min(queued_at)) AS seconds FROM label_queue`;

/** The window whose job this process has committed already (later decisions in it need none). */
const sentWindow = () => processSingleton<{ window: number }>("labelsDueWindow", () => ({ window: -1 }));

export function labelsDueJob(now = Date.now()): JobMessage & { window: number } {
  const window = Math.floor(now / LABELS_DUE_WINDOW_MS);
  const data: LabelsDueData = { drainAt: (window + 1) * LABELS_DUE_WINDOW_MS + DRAIN_GRACE_MS };
  return { id: `labels-due-${window}`, name: LABELS_DUE_EVENT, data: { ...data }, window };
}

/**
 * Queues an asset's labelling inside its decision's transaction; returns the window whose job it
 * enqueued (pass it to labellingQueued after the commit), or null when this process committed that
 * window's job already.
 */
export async function queueLabelling(runner: SqlRunner, request: LabelAssetData): Promise<number | null> {
  await runner.query(QUEUE_LABELLING, [request.assetId, request.projectId, request.generation, request.sources, request.frames]);
  const { window, ...job } = labelsDueJob();
  if (sentWindow().window === window) return null;
  await enqueueJobs(runner, [job]);
  return window;
}

/** After the commit of a transaction that enqueued a window's job: later decisions in it need none. */
export function labellingQueued(window: number | null): void {
  if (window === null) return;
  const sent = sentWindow();
  sent.window = Math.max(sent.window, window);
  void kickOutbox();
}

export interface QueuedLabels extends LabelAssetData {
  /** When the decision queued it (ms since epoch). */
  queuedAt: number;
}

export async function takeDueLabels(limit: number): Promise<QueuedLabels[]> {
  const { rows } = await sqlPool().query<QueuedLabels>(TAKE_DUE_LABELS, [limit]);
  return rows;
}

export async function removeFromLabelQueue(target: Pick<LabelAssetData, "assetId" | "generation">): Promise<void> {
  await sqlPool().query(REMOVE_FROM_LABEL_QUEUE, [target.assetId, target.generation]);
}

/**
 * When the oldest queued asset has waited longer than SIEVE_PROCESSING_RECONCILE_SECONDS (the
 * labelling yields to moderation, so a backlog may keep it waiting, and an extra job is harmless:
 * it finds the queue drained), one more job is sent. Returns whether it was.
 */
export async function reconcileLabelQueue(): Promise<boolean> {
  const { rows } = await sqlPool().query<{ seconds: number | null }>(OLDEST_QUEUED_LABELS);
  const waited = rows[0]?.seconds;
  if (waited === null || waited === undefined || Number(waited) < config().pipeline.reconcileAfterSeconds) return false;
  const { window, ...job } = labelsDueJob();
  await withTransaction(sqlPool(), (client) => enqueueJobs(client, [job]));
  labellingQueued(window);
  return true;
}
