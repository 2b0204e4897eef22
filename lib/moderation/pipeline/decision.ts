import {
  applyProcessingOutcome,
  finishDecidedAsset,
  keepsContent,
  processingFailedEvent,
  type AppliedDecision,
  type LockedAsset,
  type ProcessingOutcome,
} from "@/lib/assets/processing/outcome";
import type { ProcessAssetData } from "@/lib/assets/processing/request";
import type { EventFact } from "@/lib/events/catalogue";
import type { NewEvent } from "@/lib/events/record";
import { decide, failClosed, thresholdOverridesSchema, type DecideOptions, type FinalDecision } from "../policy";
import type { Report } from "../report";
import type { Analysis } from "./analyze";

/**
 * The decision: turns an analysis into what happens to the asset — status, action, flagged, the
 * report, children's decisions, the events and whether content goes — under the project's policy,
 * read from the asset locked for the decision, failing closed on anything that was not analysed
 * (policy.ts, failClosed). Assets applies it (lib/assets/processing/outcome.ts)
 * in one transaction, idempotently per processing generation.
 */
export function finishProcessing(data: ProcessAssetData, analysis: Analysis | null): Promise<AppliedDecision> {
  if (!analysis) return finishDecidedAsset(data);
  return applyProcessingOutcome(data, (asset) => outcomeFor(asset, analysis, data.generation));
}

function outcomeFor(asset: LockedAsset, analysis: Analysis, generation: number): ProcessingOutcome {
  const options = asset.processingOptions;
  const policy: DecideOptions = {
    thresholds: thresholdOverridesSchema.safeParse(asset.moderationThresholds).data,
    action: options?.flaggedContentPolicy?.action,
    defaultAction: asset.defaultModerationAction,
  };
  const decision = failClosed(decide(analysis.report, policy), analysis.unanalysed, asset.unanalysableAction);
  const keep = keepsContent(options, asset.keepContentByDefault);
  // A reviewer (rejected for review) or a retry (error) needs the content of what failed closed.
  const removeContent = decision.removeContent || (!keep && !failedClosed(decision));
  return {
    ...decided(analysis.report, decision),
    extractedText: analysis.extractedText,
    labels: analysis.labels,
    hold: analysis.hold,
    // Children are judged parts of the parent: whatever of them was not analysed is already in the parent's list.
    children: analysis.children.map((child) => ({ ...child, ...decided(child.report, failClosed(decide(child.report, policy), [], "reject")) })),
    events: decisionEvents(asset, decision),
    removeContent,
    // The preview is part of the retained content: none when content is not kept or goes now.
    previewImage: keep && !removeContent ? (analysis.preview ?? null) : null,
    ...labelling(asset, analysis, decision, generation),
  };
}

/** Labels for what was judged and stays: not for failed analyses, nor for content the policy purges. */
function labelling(asset: LockedAsset, analysis: Analysis, decision: FinalDecision, generation: number) {
  const sources = analysis.labelSources ?? null;
  const wanted = sources !== null && decision.status !== "error" && !decision.removeContent;
  return {
    labelRequest: wanted ? { projectId: asset.projectId, assetId: asset.id, generation, sources: sources.count, frames: sources.frames } : null,
    dropLabelSources: sources !== null && !wanted,
  };
}

function failedClosed(decision: FinalDecision): boolean {
  return decision.notAnalysed !== null && decision.status !== "approved";
}

/** The columns a decision sets on an asset or a child (children are decided with their parent's policy). */
function decided(report: Report, decision: FinalDecision) {
  return {
    status: decision.status,
    // The decision's own thresholds decide `flagged` (the project may have changed them since the analysis).
    report: { ...report, flagged: decision.flagged },
    flagged: decision.flagged,
    moderationAction: decision.moderationAction,
    rejectionNote: rejectionNoteFor(decision),
  };
}

function rejectionNoteFor(decision: FinalDecision): string | null {
  if (decision.status === "rejected" && decision.notAnalysed) {
    return `Not fully analysed, so not approved (a reviewer can approve it): ${decision.notAnalysed.summary}`;
  }
  if (decision.status !== "rejected" || !decision.moderationAction) return null;
  return `Automatically rejected (${decision.moderationAction}): flagged for ${decision.flaggedCategories.join(", ")}`;
}

function decisionEvents(asset: LockedAsset, decision: FinalDecision): NewEvent[] {
  if (decision.status === "error") {
    return [processingFailedEvent(asset, `Not fully analysed: ${decision.notAnalysed?.summary ?? "unknown"}`, decision.flagged)];
  }
  const snapshot = { id: asset.id, externalId: asset.externalId, status: decision.status, flagged: decision.flagged, moderationAction: decision.moderationAction };
  const base = { projectId: asset.projectId, userId: asset.userId, asset: snapshot };
  // The database stores the API's type names (plaintext-document, …).
  const common: EventFact[] = [
    { key: "asset-name", value: asset.name },
    { key: "asset-type", value: asset.type },
  ];
  const events: NewEvent[] = [
    {
      ...base,
      type: "asset.classified",
      title: `Asset ${decision.status}: ${asset.name}`,
      facts: [
        ...common,
        { key: "status", value: decision.status },
        { key: "moderation-action", value: decision.moderationAction === "ignore" ? null : decision.moderationAction },
      ],
    },
  ];
  if (decision.flagEvent) {
    events.push({
      ...base,
      type: "asset.flagged",
      title: `Asset flagged: ${asset.name}`,
      description: `Flagged for ${decision.flagEvent.flaggedCategories.join(", ")}; action ${decision.flagEvent.moderationAction}.`,
      facts: [
        ...common,
        { key: "flagged-categories", value: decision.flagEvent.flaggedCategories },
        { key: "moderation-action", value: decision.flagEvent.moderationAction },
      ],
    });
  }
  return events;
}
