"use client";

import Link from "next/link";
import { useRef, useState, type ReactNode } from "react";
import { usePreferences } from "@/components/portal/hooks";
import { Badge, ErrorState, Spinner } from "@/components/portal/ui";
import { BreakReminder, ReviewedCounter } from "@/components/review/wellbeing";
import { AssetFacts, ChildrenList, StatusBadge } from "./asset-facts";
import { EventHistory } from "./event-history";
import { useAssetDetail } from "./hooks";
import { ImageLabelsView } from "./image-labels";
import { MediaViewer } from "./media-viewer";
import { REASON_LABELS } from "./report-labels";
import { asReport, ReportVisual } from "./report-visual";
import { ReviewControls } from "./review-controls";
import { SegmentTimeline } from "./segment-timeline";

/** The hold's reason; the column is JSON ({reason, source, heldAt}) typed loosely by the database layer. */
function holdReason(hold: unknown): string | null {
  const reason = hold && typeof hold === "object" ? (hold as { reason?: unknown }).reason : null;
  return typeof reason === "string" && reason ? reason : null;
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return (
    <section aria-labelledby={id} data-testid={testId} className="rounded-lg border border-slate-300 bg-white p-4 shadow-sm">
      <h2 id={id} className="mb-3 text-lg font-semibold text-slate-900">
        {title}
      </h2>
      {children}
    </section>
  );
}

function ExtractedText({ title, text }: { title: string; text: string | null }) {
  return (
    <Section title={title} testId="extracted-text-section">
      {text ? (
        <pre
          tabIndex={0}
          aria-label={title}
          data-testid="extracted-text"
          className="max-h-96 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-50 p-3 font-sans text-sm text-slate-900"
        >
          {text}
        </pre>
      ) : (
        <p className="text-sm text-slate-800">No text was extracted from this asset.</p>
      )}
    </Section>
  );
}

/** Everything a reviewer needs to decide on one asset, and the decision itself. */
export function AssetDetailView({ projectId, assetId, canReview }: { projectId: string; assetId: string; canReview: boolean }) {
  const detail = useAssetDetail(projectId, assetId);
  const preferences = usePreferences();
  // null: follow the preference; true/false: the reviewer's choice for this asset.
  const [revealChoice, setRevealChoice] = useState<boolean | null>(null);
  const mediaRef = useRef<HTMLMediaElement>(null);
  const backToQueue = (
    <Link href={`/projects/${projectId}/review`} className="text-sm font-medium text-blue-800 underline underline-offset-2">
      ← Back to the review queue
    </Link>
  );

  if (detail.isPending) {
    return (
      <div className="space-y-4">
        {backToQueue}
        <Spinner label="Loading the asset…" />
      </div>
    );
  }
  if (detail.isError) {
    return (
      <div className="space-y-4">
        {backToQueue}
        <h1 className="text-2xl font-semibold text-slate-900">Asset</h1>
        <ErrorState error={detail.error} onRetry={() => void detail.refetch()} title="Could not load this asset" />
      </div>
    );
  }

  const { item, inQueue, children, events } = detail.data;
  const { asset } = item;
  const report = asReport(asset.report);
  const revealed = revealChoice ?? preferences.revealMediaByDefault;
  const isTimed = asset.type === "audio" || asset.type === "video";
  const seek = (seconds: number) => {
    const element = mediaRef.current;
    if (!element) return;
    element.currentTime = seconds;
    element.focus();
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        {backToQueue}
        <ReviewedCounter />
      </div>
      <BreakReminder />
      <div className="space-y-1">
        <h1 className="break-words text-2xl font-semibold text-slate-900" data-testid="asset-name">
          {asset.name}
        </h1>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <StatusBadge status={asset.status} />
          {inQueue && item.reason ? <Badge tone="info">In queue: {REASON_LABELS[item.reason]}</Badge> : <Badge>Not in the queue</Badge>}
          {asset.parentId ? (
            <Link href={`/projects/${projectId}/assets/${asset.parentId}`} className="text-blue-800 underline underline-offset-2">
              Open the parent asset
            </Link>
          ) : null}
        </div>
        {asset.safetyHold ? (
          <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
            Held for safety{holdReason(asset.safetyHold) ? ` (${holdReason(asset.safetyHold)})` : ""}. Decisions are blocked until an administrator releases the hold.
          </p>
        ) : null}
      </div>

      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="space-y-4">
          <Section title={asset.type === "plaintext-document" ? "Text" : "Media"}>
            <MediaViewer item={item} revealed={revealed} onToggleReveal={() => setRevealChoice(!revealed)} mediaRef={mediaRef} />
          </Section>
          {isTimed && report?.media ? (
            <Section title="Timeline" testId="timeline-section">
              <SegmentTimeline
                media={report.media}
                onSeek={revealed || asset.type === "audio" ? seek : undefined}
                frameUrls={detail.data.frameUrls}
                revealed={revealed}
              />
            </Section>
          ) : null}
          {asset.type === "image" || asset.type === "video" ? (
            <Section title="What it shows" testId="image-labels-section">
              <ImageLabelsView labels={asset.imageLabels} type={asset.type} />
            </Section>
          ) : null}
          {/* A text asset's own text is shown above; "nothing extracted" would only confuse there. */}
          {asset.type === "plaintext-document" && !asset.extractedText ? null : (
            <ExtractedText title={isTimed ? "Transcript" : "Extracted text"} text={asset.extractedText} />
          )}
        </div>

        <div className="space-y-4">
          <Section title="Decision">
            <ReviewControls projectId={projectId} detail={detail.data} canReview={canReview} />
          </Section>
          <Section title="Moderation report">
            {report ? <ReportVisual report={report} /> : <p className="text-sm text-slate-800">No report yet: the asset has not been analysed.</p>}
          </Section>
          <Section title="Details">
            <AssetFacts detail={detail.data} />
          </Section>
        </div>
      </div>

      <Section title="Extracted parts">
        <ChildrenList projectId={projectId} items={children} />
      </Section>
      <Section title="History">
        <EventHistory events={events} />
      </Section>
    </div>
  );
}
