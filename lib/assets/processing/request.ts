import type { Asset as AssetRow } from "@/lib/db/generated/client";
import type { JobMessage } from "@/lib/jobs/outbox";

/**
 * What assets publish when an asset needs processing (an upload completed, a retry, the
 * reconciler): one job message per asset and processing generation, written to the job outbox in
 * the same transaction as the asset. The moderation pipeline consumes it (inngest/functions).
 */

/** A new asset's processing generation; each retry starts the next. */
export const FIRST_GENERATION = 0;

/** The event that asks the pipeline to process one asset (one generation: a retry starts the next). */
export const PROCESS_ASSET_EVENT = "sieve/asset.process-requested";

export interface ProcessAssetData {
  assetId: string;
  projectId: string;
  generation: number;
  /**
   * Concurrency lane (each lane key runs at most 2 at once, see process-asset.ts):
   * - `interactive-0|1`: text and images a `queue=false` request is waiting for (two keys: 4 at once);
   * - `bulk`: queued text and images, processed in batches (process-asset-batch.ts);
   * - `background`: other queued work, and bulk assets a batch could not process — it must not take
   *   the CPU from requests;
   * - `media`: audio and video, which take seconds to minutes.
   */
  lane: "interactive-0" | "interactive-1" | "bulk" | "background" | "media";
  /** Bulk lane only: batches hold one kind, so each can be paced for it (process-asset-batch.ts). */
  bulkKind?: "text" | "image";
}

/** Types a `queue=false` request waits for (the spec: text and images decide within the request). */
export const INTERACTIVE_TYPES = new Set<AssetRow["type"]>(["image", "plaintext_document"]);

function laneOf(row: Pick<AssetRow, "id" | "type" | "queued">): ProcessAssetData["lane"] {
  if (row.type === "audio" || row.type === "video") return "media";
  if (!INTERACTIVE_TYPES.has(row.type)) return "background";
  if (row.queued) return "bulk";
  return parseInt(row.id.slice(-1), 16) % 2 === 0 ? "interactive-0" : "interactive-1";
}

function processAssetData(row: Pick<AssetRow, "id" | "projectId" | "processingGeneration" | "type" | "queued">): ProcessAssetData {
  const lane = laneOf(row);
  return {
    assetId: row.id,
    projectId: row.projectId,
    generation: row.processingGeneration,
    lane,
    ...(lane === "bulk" && { bulkKind: row.type === "image" ? "image" : "text" }),
  };
}

/** Same asset and generation → same event id, so re-sends (reconciler, client retries) are deduplicated. */
function processEventId(data: ProcessAssetData): string {
  return `sieve-process-${data.assetId}-${data.generation}`;
}

type RequestFacts = Parameters<typeof processAssetData>[0];

/** The job message asking the pipeline to process this asset's current generation (urgent when a request waits for it). */
export function processingRequest(row: RequestFacts): JobMessage {
  const data = processAssetData(row);
  return { id: processEventId(data), name: PROCESS_ASSET_EVENT, data: { ...data }, urgent: data.lane.startsWith("interactive") };
}

/**
 * The message that gives a bulk asset a run of its own (its own retries and failure handling), when
 * its batch could not process it; a distinct event id, since the batch's event was already used.
 */
export function singleProcessingRequest(data: ProcessAssetData): JobMessage {
  const { bulkKind: _kind, ...rest } = data;
  const single: ProcessAssetData = { ...rest, lane: "background" };
  return { id: `${processEventId(data)}-single`, name: PROCESS_ASSET_EVENT, data: { ...single } };
}
