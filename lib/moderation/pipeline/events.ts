import type { Asset as AssetRow } from "@/lib/db/generated/client";

/** The event that asks the pipeline to process one asset (one generation: a retry starts the next). */
export const PROCESS_ASSET_EVENT = "sieve/asset.process-requested";

export interface ProcessAssetData {
  assetId: string;
  projectId: string;
  generation: number;
  /** Audio and video take minutes: they get their own concurrency lane so text and images never queue behind them. */
  lane: "fast" | "media";
}

export function processAssetData(row: Pick<AssetRow, "id" | "projectId" | "processingGeneration" | "type">): ProcessAssetData {
  return {
    assetId: row.id,
    projectId: row.projectId,
    generation: row.processingGeneration,
    lane: row.type === "audio" || row.type === "video" ? "media" : "fast",
  };
}

/** Same asset and generation → same event id, so re-sends (reconciler, client retries) are deduplicated. */
export function processEventId(data: ProcessAssetData): string {
  return `sieve-process-${data.assetId}-${data.generation}`;
}
