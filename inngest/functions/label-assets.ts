import { inngest } from "@/inngest/client";
import { LABELS_DUE_EVENT, type LabelsDueData } from "@/lib/assets/labels/queue";
import { labelDueAssets } from "@/lib/assets/labels/run";

/**
 * Labels images and videos' frames after their decisions: drains label_queue
 * (lib/assets/labels/queue.ts, run.ts) in steps of LABEL_BATCH_SIZE assets. One job per 2 s window
 * of decisions; its run sleeps until the window's assets are committed, then takes the oldest
 * first until the queue is empty, yielding to moderation (run.ts: labels wait while a backlog is
 * decided, up to SIEVE_IMAGE_LABELS_YIELD_MS). One run at a time: the detector takes a whole core,
 * and moderation needs the others (the runs of later windows wait, then find little or nothing left).
 * An asset whose labelling fails twice leaves the queue with `imageLabels` null (labels are a
 * search aid, never part of the decision); a step that fails outright is retried, and what it
 * did not settle stays queued for the next run.
 */
export const LABEL_BATCH_SIZE = 20;
/** A run's limit of steps (5000 assets, or about 2 h of yielding to a backlog); what is left goes to the next window's run or to reconciliation. */
const MAX_STEPS_PER_RUN = 250;

export const labelAssetsFunction = inngest.createFunction(
  {
    id: "label-assets",
    name: "Label images",
    retries: 2,
    concurrency: [{ limit: 1 }],
    triggers: [{ event: LABELS_DUE_EVENT }],
  },
  async ({ event, step }) => {
    const { drainAt } = event.data as LabelsDueData;
    await step.sleepUntil("window-committed", new Date(drainAt));
    let labelled = 0;
    for (let n = 0; n < MAX_STEPS_PER_RUN; n++) {
      const outcome = await step.run(`label-${n}`, () => labelDueAssets(LABEL_BATCH_SIZE));
      labelled += outcome.labelled;
      if (!outcome.deferred && outcome.taken < LABEL_BATCH_SIZE) break;
    }
    return { labelled };
  },
);
