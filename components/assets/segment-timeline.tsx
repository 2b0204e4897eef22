"use client";

import type { Category, Likelihood, ReportCategories, ReportMedia } from "@/lib/moderation/report";
import { buttonClass } from "@/components/portal/styles";
import { CATEGORIES, CATEGORY_LABELS, formatScore, formatSeconds, LIKELIHOOD_BAR, LIKELIHOOD_LABELS, SEGMENT_SOURCE_LABELS } from "./report-labels";

interface Worst {
  category: Category;
  likelihood: Likelihood;
  score: number;
}

/** The segment's highest-scoring judged category (null when nothing in it was judged). */
function worstCategory(categories: ReportCategories): Worst | null {
  let worst: Worst | null = null;
  for (const category of CATEGORIES) {
    const entry = categories[category];
    if (entry.status === "not-evaluated") continue;
    if (!worst || entry.score > worst.score) worst = { category, likelihood: entry.likelihood, score: entry.score };
  }
  return worst;
}

/** A sampled frame beside its row: blurred and greyscale like the player until the reviewer reveals media. */
function FrameThumbnail({ url, seconds, revealed }: { url: string | undefined; seconds: number; revealed: boolean }) {
  if (!url) return null;
  return (
    <span className="inline-block h-12 w-20 overflow-hidden rounded border border-slate-300 bg-slate-100 align-middle">
      <img
        src={url}
        alt={`Frame at ${formatSeconds(seconds)}`}
        loading="lazy"
        data-testid="frame-thumbnail"
        data-revealed={revealed ? "true" : "false"}
        className={`h-full w-full object-cover ${revealed ? "" : "blur-md grayscale scale-110"}`}
      />
    </span>
  );
}

/**
 * Audio/video findings over time: a strip for orientation (decorative) and a table with the same
 * facts for everyone, with the sampled frame beside each frame segment (`frameUrls`, in order).
 * "Play from" seeks the media player when it is revealed.
 */
export function SegmentTimeline({
  media,
  onSeek,
  frameUrls = [],
  revealed = false,
}: {
  media: ReportMedia;
  onSeek?: (seconds: number) => void;
  frameUrls?: string[];
  revealed?: boolean;
}) {
  const duration = media.durationSeconds;
  let frameIndex = 0;
  const segments = media.segments.map((segment) => ({
    segment,
    worst: worstCategory(segment.categories),
    frameUrl: segment.source === "frame" ? frameUrls[frameIndex++] : undefined,
  }));
  const withFrames = frameUrls.length > 0;

  return (
    <div data-testid="segment-timeline" className="space-y-3">
      <p className="text-sm text-slate-800">
        Duration {formatSeconds(duration)} · {media.sampledFrames} frame{media.sampledFrames === 1 ? "" : "s"} sampled (every{" "}
        {media.frameIntervalSeconds} s) · audio {media.audioTranscribed ? "transcribed" : "not transcribed"}
      </p>
      {segments.length === 0 ? (
        <p className="text-sm text-slate-800">No segments were recorded.</p>
      ) : (
        <>
          <div aria-hidden="true" className="relative h-6 w-full overflow-hidden rounded border border-slate-300 bg-slate-100">
            {segments.map(({ segment, worst }, index) => {
              const left = Math.min(100, (segment.startSeconds / duration) * 100);
              const width = Math.max(0.75, ((segment.endSeconds - segment.startSeconds) / duration) * 100);
              return (
                <div
                  key={index}
                  className={`absolute top-0 h-full opacity-80 ${worst ? LIKELIHOOD_BAR[worst.likelihood] : "bg-slate-300"}`}
                  style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                />
              );
            })}
          </div>
          <div className="overflow-x-auto">
            <table className="w-full min-w-[32rem] text-left text-sm">
              <caption className="sr-only">Segments</caption>
              <thead>
                <tr className="border-b border-slate-300 text-slate-900">
                  <th scope="col" className="py-1.5 pr-3 font-semibold">
                    Time
                  </th>
                  {withFrames ? (
                    <th scope="col" className="py-1.5 pr-3 font-semibold">
                      Frame
                    </th>
                  ) : null}
                  <th scope="col" className="py-1.5 pr-3 font-semibold">
                    Source
                  </th>
                  <th scope="col" className="py-1.5 pr-3 font-semibold">
                    Worst category
                  </th>
                  {onSeek ? (
                    <th scope="col" className="py-1.5 font-semibold">
                      <span className="sr-only">Play</span>
                    </th>
                  ) : null}
                </tr>
              </thead>
              <tbody>
                {segments.map(({ segment, worst, frameUrl }, index) => (
                  <tr key={index} data-testid="segment" className="border-b border-slate-200">
                    <td className="py-1.5 pr-3 tabular-nums">
                      {formatSeconds(segment.startSeconds)}–{formatSeconds(segment.endSeconds)}
                    </td>
                    {withFrames ? (
                      <td className="py-1.5 pr-3">
                        <FrameThumbnail url={frameUrl} seconds={(segment.startSeconds + segment.endSeconds) / 2} revealed={revealed} />
                      </td>
                    ) : null}
                    <td className="py-1.5 pr-3">{SEGMENT_SOURCE_LABELS[segment.source]}</td>
                    <td className="py-1.5 pr-3">
                      {worst ? `${CATEGORY_LABELS[worst.category]}: ${LIKELIHOOD_LABELS[worst.likelihood]} (${formatScore(worst.score)})` : "Not evaluated"}
                    </td>
                    {onSeek ? (
                      <td className="py-1.5">
                        <button type="button" className={buttonClass("ghost", "min-h-0 px-1 py-0")} onClick={() => onSeek(segment.startSeconds)}>
                          Play from {formatSeconds(segment.startSeconds)}
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
