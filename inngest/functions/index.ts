import { deliverToConnector } from "./deliver-to-connector";
import { labelAssetsFunction } from "./label-assets";
import { processAsset } from "./process-asset";
import { processAssetBatchFunction } from "./process-asset-batch";
import { runAssetBatch } from "./run-asset-batch";

/** Every Inngest function of Sieve, served by app/api/inngest/route.ts. */
export const functions = [processAsset, processAssetBatchFunction, runAssetBatch, deliverToConnector, labelAssetsFunction];
