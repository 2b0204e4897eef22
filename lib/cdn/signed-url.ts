import type { ProjectScope } from "@/lib/auth/authorize";
import { requireAsset } from "@/lib/assets/lookup";
import { config } from "@/lib/core/config";
import { ApiError } from "@/lib/core/errors";
import type { SignedUrlInput } from "@/lib/cdn/endpoints";
import { requireActiveLens } from "@/lib/cdn/lens-lookup";
import { cdnPathOf } from "@/lib/cdn/paths";
import { parseSelector, selectorKey } from "@/lib/cdn/selector";
import { sign, type SignedTarget } from "@/lib/cdn/signing";

/** POST /assets/:assetId/signed-url: the selector is checked now, so a bad one fails here rather than at the CDN. */
export async function createSignedUrl(key: ProjectScope, assetId: string, input: SignedUrlInput): Promise<{ url: string; expiresAt: number }> {
  const asset = await requireAsset(key, assetId);
  const selector = await selectorOf(asset.projectId, input);
  const expiresAt = Date.now() + Math.round(input.expiresInSeconds * 1000);
  const target: SignedTarget = { projectId: asset.projectId, assetIdentifier: asset.id, resource: input.resource, selector };
  const sig = await sign(target, expiresAt);
  return { url: `${config().cdnBaseUrl}${cdnPathOf(target)}?exp=${expiresAt}&sig=${sig}`, expiresAt };
}

/** The selector as the CDN will read it, checked now: a lens must exist and be active. */
async function selectorOf(projectId: string, input: SignedUrlInput): Promise<string> {
  if (input.lens !== undefined) {
    const parsed = parseSelector(`@${input.lens.replace(/^@/, "")}`);
    if (parsed.kind !== "lens") throw new ApiError("asset/invalid-transform", `"${input.lens}" is not a lens identifier.`);
    await requireActiveLens(projectId, parsed.identifier);
    return selectorKey(parsed);
  }
  if (input.transform !== undefined) {
    const parsed = parseSelector(input.transform);
    if (parsed.kind !== "transform") throw new ApiError("asset/invalid-transform", `"${input.transform}" is not a transform selector (imageTransform[key=value,...]).`);
    return selectorKey(parsed);
  }
  return "";
}
