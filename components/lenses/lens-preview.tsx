"use client";

import { useId, useState } from "react";
import type { PortalLensList } from "@/lib/portal/types";
import { inputClass, labelClass } from "@/components/portal/styles";
import { cdnUrl } from "./lens-model";

interface Props {
  projectId: string;
  assets: PortalLensList["previewAssets"];
  /** `@identifier` of the saved lens, or null when it is not saved (or not served: inactive). */
  savedSelector: string | null;
  savedNote: string;
  /** The draft as a direct transform, or null when it has no option (or several steps). */
  draftSelector: string | null;
  /** Why there is no draft image, when draftSelector is null. */
  draftNote: string;
}

/**
 * The lens on a chosen image, through the CDN with the portal session: the saved version by its
 * identifier and the draft as the equivalent imageTransform selector (an unsaved draft has no
 * identifier the CDN knows).
 */
export function LensPreview({ projectId, assets, savedSelector, savedNote, draftSelector, draftNote }: Props) {
  const id = useId();
  const [assetId, setAssetId] = useState(assets[0]?.id ?? "");
  if (assets.length === 0) {
    return (
      <p data-testid="preview-empty" className="rounded-md border border-dashed border-slate-400 p-3 text-sm text-slate-800">
        No preview: the project has no approved image with retained content yet (the CDN serves only those).
      </p>
    );
  }
  const asset = assets.find((a) => a.id === assetId) ?? assets[0]!;
  return (
    <section aria-label="Live preview" data-testid="lens-preview" className="space-y-2">
      <div className="space-y-1">
        <label htmlFor={`${id}-asset`} className={labelClass}>
          Preview on
        </label>
        <select id={`${id}-asset`} className={inputClass} value={asset.id} onChange={(e) => setAssetId(e.target.value)}>
          {assets.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Figure title="Saved version" selector={savedSelector} note={savedNote} src={savedSelector && cdnUrl(projectId, asset.id, savedSelector)} name={asset.name} />
        <Figure
          title="Draft (as a direct transform)"
          selector={draftSelector}
          note={draftNote}
          src={draftSelector && cdnUrl(projectId, asset.id, draftSelector)}
          name={asset.name}
        />
      </div>
    </section>
  );
}

function Figure({ title, selector, note, src, name }: { title: string; selector: string | null; note: string; src: string | null; name: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <figure className="space-y-1 rounded-md border border-slate-300 bg-white p-2">
      <figcaption className="text-sm font-medium text-slate-900">{title}</figcaption>
      {src ? (
        <>
          {failed === src ? (
            <p role="alert" className="text-sm text-red-900">The CDN did not serve this image.</p>
          ) : (
            // A plain <img>: the CDN URL must be requested as is (an image optimiser would re-encode it).
            <img src={src} alt={`${name} through ${selector}`} className="max-h-64 max-w-full border border-slate-200 bg-slate-100" onError={() => setFailed(src)} />
          )}
          <code className="block text-xs break-all text-slate-700">{selector}</code>
        </>
      ) : (
        <p className="text-sm text-slate-700">{note}</p>
      )}
    </figure>
  );
}
