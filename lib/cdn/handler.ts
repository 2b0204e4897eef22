import { sessionTokenFrom } from "@/lib/auth/sessions";
import { ApiError } from "@/lib/core/errors";
import { authorise, notServable, type Access } from "@/lib/cdn/access";
import { cacheKey, findCdnAsset, type CdnAsset } from "@/lib/cdn/asset-state";
import { peekOwnLens } from "@/lib/cdn/lens-lookup";
import type { HotMemo } from "@/lib/cdn/hot-path";
import { parseCdnPath, type CdnPath } from "@/lib/cdn/paths";
import { cdnError, type CdnRequest, type CdnResponse } from "@/lib/cdn/response";
import { parseSelector, selectorKey } from "@/lib/cdn/selector";
import type { Selector } from "@/lib/cdn/types";
import { serveDerived, serveStored } from "@/lib/cdn/serve";
import { resolveVariant } from "@/lib/cdn/variant";

/**
 * The CDN: one framework-agnostic handler, dispatched below Next.js by the production server
 * (lib/server) and mounted as the Next route app/cdn/v1 (so `next dev` serves it too).
 * Every request — cache hits included — checks the asset's current state (serving rules 1–4,
 * from memory kept current by NOTIFY, asset-state.ts) and the caller's access before any bytes.
 */
export async function handleCdnRequest(request: CdnRequest): Promise<CdnResponse> {
  let response: CdnResponse;
  try {
    response = await serve(request);
  } catch (error) {
    response = cdnError(error, request.requestId);
  }
  response.headers["X-Request-Id"] = request.requestId;
  if (request.method === "HEAD") response.body = null;
  return response;
}

async function serve(request: CdnRequest): Promise<CdnResponse> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new ApiError("request/method-not-allowed", "The CDN answers GET and HEAD only.", { headers: { Allow: "GET, HEAD" } });
  }
  const path = parseCdnPath(request.path);
  if (!path) throw new ApiError("request/route-not-found", "No such CDN path: expected /assets/:projectId/:assetIdentifier/content or /preview.");
  const selector = parseSelector(path.selector);
  const asset = await findCdnAsset(path.projectId, path.assetIdentifier);
  if (!asset) throw new ApiError("asset/not-found");
  const access = await authorise(
    asset,
    { projectId: path.projectId, assetIdentifier: path.assetIdentifier, resource: path.resource, selector: selectorKey(selector) },
    {
      exp: request.query.get("exp"),
      sig: request.query.get("sig"),
      apiKey: request.header("x-api-key") ?? null,
      sessionToken: sessionTokenFrom(request.header("cookie")),
    },
  );
  assertServable(asset);
  const variant = await resolveVariant(asset, path.resource, selector);
  const cacheControl = cacheControlFor(access);
  const response =
    variant.kind === "stored" ? await serveStored(asset, variant.source, request, cacheControl) : await serveDerived(asset, variant, request, cacheControl);
  if (access === "public" && response.status === 200 && response.memoKey) response.memo = hotMemo(path, asset, selector, response.memoKey);
  return response;
}

/** What the hot path must find unchanged to answer this URL again; none for a lens whose lookup is not cached. */
function hotMemo(path: CdnPath, asset: CdnAsset, selector: Selector, bytesKey: string): HotMemo | undefined {
  const memo: HotMemo = { stateKey: cacheKey(path.projectId, path.assetIdentifier), state: asset, bytesKey };
  if (selector.kind !== "lens") return memo;
  const own = peekOwnLens(asset.projectId, selector.identifier);
  return own && { ...memo, lens: { projectId: asset.projectId, identifier: selector.identifier, own: own.value } };
}

/**
 * Serving rules 1, 3, 4: only approved assets with retained, present content and no hold. Assets
 * still being moderated (uploading, pending) are not served either: nothing unjudged leaves us.
 * A private asset answers 404, a public one 403 asset/not-available with the reason.
 */
function assertServable(asset: CdnAsset): void {
  const reason = unavailableReason(asset);
  if (reason) throw notServable(asset, reason);
}

function unavailableReason(asset: CdnAsset): string | null {
  if (asset.held) return "it is under a safety hold";
  if (asset.status === "rejected" || asset.status === "error") return `its status is ${asset.status}`;
  if (asset.status !== "approved") return `it is still ${asset.status === "uploading" ? "uploading" : "being moderated"}`;
  if (asset.contentRemoved || !asset.storageId) return "its content was removed";
  if (!asset.keepContent) return "its content was not retained (keepContentAfterProcessing is false)";
  return null;
}

/**
 * Shared caches (a CDN in front) may keep a response 5 seconds at most, after which they must
 * revalidate (a cheap 304 by ETag), so a blocked asset stops being served within seconds there
 * too. Signed, key- and session-authorised responses are private: no shared cache may keep them.
 */
function cacheControlFor(access: Access): string {
  return access === "public" ? "public, max-age=5, must-revalidate" : "private, max-age=5, must-revalidate";
}
