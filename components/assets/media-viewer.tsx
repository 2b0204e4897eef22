"use client";

import { useState, type ReactNode, type Ref } from "react";
import type { QueueItem } from "@/lib/portal/types";
import { buttonClass } from "@/components/portal/styles";
import { assetTypeLabel } from "./report-labels";
import { TextContent } from "./text-content";

/**
 * Wellbeing defaults for every piece of media in the portal: pictures and video frames stay
 * blurred and greyscale until the reviewer reveals them, video and audio start muted, nothing
 * plays by itself, and a video only loads once revealed.
 */
const HIDDEN = "blur-xl grayscale scale-110";

function hasVisual(item: QueueItem): boolean {
  const type = item.asset.type;
  return item.previewUrl !== null || (item.contentUrl !== null && (type === "image" || type === "video"));
}

/** The still picture to show: the WebP preview, or an image's own content when it has none. */
function stillUrl(item: QueueItem): string | null {
  if (item.previewUrl) return item.previewUrl;
  return item.asset.type === "image" ? item.contentUrl : null;
}

function Placeholder({ text, compact }: { text: string; compact: boolean }) {
  return (
    <div className={`flex items-center justify-center bg-slate-200 p-2 text-center font-medium text-slate-800 ${compact ? "size-full text-xs" : "min-h-48 w-full text-sm"}`}>
      {text}
    </div>
  );
}

interface RevealProps {
  item: QueueItem;
  revealed: boolean;
  onToggleReveal: () => void;
}

/** A queue row's thumbnail (64px square) with its own Reveal/Blur toggle. */
export function MediaThumbnail({ item, revealed, onToggleReveal }: RevealProps) {
  const [failed, setFailed] = useState(false);
  const url = stillUrl(item);
  const visual = hasVisual(item);
  return (
    <div className="flex shrink-0 flex-col items-center gap-1">
      <div
        data-testid="media"
        data-revealed={revealed ? "true" : "false"}
        className="size-16 overflow-hidden rounded border border-slate-300 bg-slate-200"
      >
        {url && !failed ? (
          // A plain <img>: the CDN URL is same-origin and authorised by the session cookie, which
          // next/image's optimiser would not forward.
          <img
            src={url}
            alt=""
            decoding="async"
            onError={() => setFailed(true)}
            className={`size-full object-cover transition ${revealed ? "" : HIDDEN}`}
          />
        ) : (
          <Placeholder text={failed ? "No preview" : assetTypeLabel(item.asset.type)} compact />
        )}
      </div>
      {visual && url && !failed ? (
        <button type="button" className="min-h-6 px-1 text-xs font-medium text-blue-800 underline underline-offset-2" onClick={onToggleReveal}>
          {revealed ? "Blur" : "Reveal"}
        </button>
      ) : null}
    </div>
  );
}

/** The asset detail's media: picture, video or audio, blurred until revealed. */
export function MediaViewer({ item, revealed, onToggleReveal, mediaRef }: RevealProps & { mediaRef?: Ref<HTMLMediaElement> }) {
  const [failed, setFailed] = useState(false);
  const { asset } = item;
  const url = stillUrl(item);
  const held = asset.safetyHold !== null && asset.safetyHold !== undefined;
  const showsText = !held && !failed && asset.type === "plaintext-document" && item.contentUrl !== null;

  let content: ReactNode;
  if (held) {
    // Held content (e.g. a hash-list match) is never displayed in the portal.
    content = <Placeholder text="Held for safety: media is not shown" compact={false} />;
  } else if (failed) {
    content = <Placeholder text="The media could not be loaded" compact={false} />;
  } else if (asset.type === "video" && item.contentUrl && revealed) {
    content = (
      <video
        ref={mediaRef as Ref<HTMLVideoElement>}
        src={item.contentUrl}
        poster={item.previewUrl ?? undefined}
        controls
        muted
        playsInline
        preload="metadata"
        onError={() => setFailed(true)}
        className="max-h-[70vh] w-full bg-black"
      >
        Your browser cannot play this video.
      </video>
    );
  } else if (asset.type === "audio" && item.contentUrl) {
    content = (
      <div className="flex w-full flex-col gap-3 p-4">
        {url ? (
          <img src={url} alt={`Preview of ${asset.name}`} className={`max-h-64 w-full object-contain ${revealed ? "" : HIDDEN}`} />
        ) : null}
        <audio ref={mediaRef as Ref<HTMLAudioElement>} src={item.contentUrl} controls muted preload="none" onError={() => setFailed(true)} className="w-full">
          Your browser cannot play this audio.
        </audio>
      </div>
    );
  } else if (showsText && item.contentUrl) {
    content = <TextContent url={item.contentUrl} />;
  } else if (url) {
    content = (
      <img
        src={url}
        alt={`Preview of ${asset.name}`}
        onError={() => setFailed(true)}
        className={`max-h-[70vh] w-full object-contain transition ${revealed ? "" : HIDDEN}`}
      />
    );
  } else {
    content = <Placeholder text={asset.type === "video" ? "No preview available" : `${assetTypeLabel(asset.type)}: no visual media`} compact={false} />;
  }

  const canToggle = !held && !failed && hasVisual(item);
  return (
    <figure className="space-y-2">
      <div
        data-testid="media"
        data-revealed={revealed ? "true" : "false"}
        className={
          showsText
            ? "overflow-hidden rounded-md border border-slate-300 bg-white"
            : "flex min-h-48 items-center justify-center overflow-hidden rounded-md border border-slate-300 bg-slate-100"
        }
      >
        {content}
      </div>
      <figcaption className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
        {canToggle ? (
          <button type="button" className={buttonClass("secondary")} onClick={onToggleReveal}>
            {revealed ? "Blur" : "Reveal"}
          </button>
        ) : null}
        {!revealed && canToggle ? <span>Media is blurred and in greyscale until you reveal it.</span> : null}
        {asset.type === "video" || asset.type === "audio" ? <span>Sound starts muted.</span> : null}
      </figcaption>
    </figure>
  );
}
