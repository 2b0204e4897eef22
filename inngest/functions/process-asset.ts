import { inngest } from "@/inngest/client";
import { analyzeAsset } from "@/lib/moderation/pipeline/analyze";
import { offerEarlyJudge } from "@/lib/assets/processing/early-judgement";
import { markProcessingFailed } from "@/lib/assets/processing/outcome";
import { PROCESS_ASSET_EVENT, type ProcessAssetData } from "@/lib/assets/processing/request";
import { finishProcessing } from "@/lib/moderation/pipeline/decision";
import { earlyImageJudge } from "@/lib/moderation/pipeline/image-judgement";

// This process analyses assets: a queue=false image may be judged while its upload is stored.
offerEarlyJudge(earlyImageJudge);

/**
 * Classifies one asset and applies the policy. The analysis (read content, run classifiers, build
 * the report) writes nothing; finishProcessing applies it in one transaction, removes content when
 * due and wakes waiting requests; both are idempotent per processing generation.
 * - text, images, documents, websites: one step, so a `queue=false` upload waits for a single
 *   call; a retry re-runs the (cheap) analysis.
 * - audio, video (`media` lane): the expensive analysis is its own memoized step, so a crash after
 *   it never analyzes the same video twice.
 * Lanes (lib/assets/processing/request.ts) keep queue=false requests from waiting behind background work, and background
 * work from taking every core from the requests.
 * When every retry failed, onFailure puts the asset in `error` with an `asset.failed` event.
 */
export const processAsset = inngest.createFunction(
  {
    id: "process-asset",
    name: "Process asset",
    retries: 3,
    // Per lane key; the interactive lane has two keys.
    concurrency: [{ limit: 2, key: "event.data.lane" }],
    // Queued text and images go to process-asset-batch.
    triggers: [{ event: PROCESS_ASSET_EVENT, if: "event.data.lane != 'bulk'" }],
    onFailure: async ({ event, error, step }) => {
      const data = event.data.event.data as ProcessAssetData;
      await step.run("mark-failed", () => markProcessingFailed(data, error.message));
    },
  },
  async ({ event, step }) => {
    const data = event.data as ProcessAssetData;
    if (data.lane !== "media") {
      return step.run("classify-and-decide", async () => finishProcessing(data, await analyzeAsset(data)));
    }
    const analysis = await step.run("analyze", () => analyzeAsset(data));
    return step.run("decide", () => finishProcessing(data, analysis));
  },
);
