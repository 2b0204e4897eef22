import { createHash } from "node:crypto";
import { cdnCachePrefix } from "@/lib/assets/storage-keys";
import { ApiError } from "@/lib/core/errors";
import type { CdnAsset } from "@/lib/cdn/asset-state";
import { requireActiveLens } from "@/lib/cdn/lens-lookup";
import type { ImageTransformStep, Selector } from "@/lib/cdn/types";

/**
 * What a request asks for, resolved against the asset: the stored original, the stored preview,
 * or an image derived from one of them by transform steps (a direct selector or a lens).
 * - `image` lenses transform an image asset's content, and any asset's preview;
 * - `video`, `document`, `website` lenses apply to assets of that type only, their image
 *   transforms acting on the preview (poster frame, first page, page card); a lens without
 *   transforms serves the content unchanged (the only kind an `audio` lens can be);
 * - `imageTransform[...]` on `/content` needs an image asset; on `/preview` it transforms the preview.
 */
export type Source = "original" | "preview";

export type Variant =
  | { kind: "stored"; source: Source }
  | { kind: "derived"; source: Source; steps: ImageTransformStep[]; cacheKey: string; storageKey: string; etag: string };

const LENS_ASSET_TYPES: Record<string, string[]> = {
  video: ["video"],
  audio: ["audio"],
  document: ["plaintext_document", "multimedia_document"],
  website: ["website"],
};

export async function resolveVariant(asset: CdnAsset, resource: Source | "content", selector: Selector): Promise<Variant> {
  const requested: Source = resource === "preview" ? "preview" : "original";
  if (selector.kind === "none") return { kind: "stored", source: requested };
  if (selector.kind === "transform") {
    if (requested === "original" && asset.type !== "image") {
      throw new ApiError(
        "asset/invalid-transform",
        `imageTransform applies to image content; this asset is ${typeName(asset.type)} (transform its preview: .../preview/${selector.canonical}).`,
      );
    }
    return derived(asset, requested, [selector.step], selector.canonical);
  }
  const lens = await requireActiveLens(asset.projectId, selector.identifier);
  if (lens.type !== "image" && !LENS_ASSET_TYPES[lens.type]?.includes(asset.type)) {
    throw new ApiError("asset/invalid-transform", `Lens "@${lens.identifier}" applies to ${lens.type} assets; this asset is ${typeName(asset.type)}.`);
  }
  const steps = (lens.transforms ?? []).filter((t) => t.type === "imageTransform").map((t) => t.options as ImageTransformStep);
  if (steps.length === 0) return { kind: "stored", source: requested };
  // Image transforms need an image: an image asset's content, else the asset's preview.
  const source: Source = requested === "original" && asset.type === "image" ? "original" : "preview";
  return derived(asset, source, steps, `@${lens.projectId ?? "builtin"}/${lens.identifier}@v${lens.version}`);
}

function derived(asset: CdnAsset, source: Source, steps: ImageTransformStep[], variantId: string): Variant {
  const sourceId = source === "original" ? `o:${asset.sha256 ?? asset.storageId}` : `p:${previewIdentity(asset)}`;
  const cacheKey = `${asset.id}|${sourceId}|${variantId}`;
  const hash = createHash("sha256").update(cacheKey).digest("base64url").slice(0, 32);
  return { kind: "derived", source, steps, cacheKey, storageKey: `${cdnCachePrefix(asset.projectId, asset.id)}${hash}`, etag: `"d-${hash}"` };
}

/** The stored preview changes only with processing: its descriptor identifies it. */
export function previewIdentity(asset: CdnAsset): string {
  const p = asset.previewImage;
  return `${p?.generation ?? 0}-${p?.sizeInBytes ?? 0}-${p?.width ?? 0}x${p?.height ?? 0}`;
}

function typeName(type: string): string {
  const name = type.replace("_", "-");
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
