import { authenticateApiKey } from "@/lib/auth/api-keys";
import { assertPermission, assertSameProject, projectMembership } from "@/lib/auth/authorize";
import { sessionUser } from "@/lib/auth/sessions";
import { ApiError } from "@/lib/core/errors";
import type { CdnAsset } from "@/lib/cdn/asset-state";
import { verify, type SignedTarget } from "@/lib/cdn/signing";

/**
 * Who may read an asset through the CDN (spec, Authentication 5): anyone for a public asset; for a
 * private one (visibility private or unset) a valid signed URL, or an API key of the project with
 * `assets:download` in X-Api-Key, or the portal session (cookie) of a project member whose role
 * grants `assets:download`.
 * A private asset the request may not read answers 404, as if it did not exist; a key that is
 * wrong or lacks the permission gets the API's own 401/403, so its holder can tell.
 */
export interface Credentials {
  exp: string | null;
  sig: string | null;
  apiKey: string | null;
  /** The portal session cookie's token. */
  sessionToken: string | null;
}

export type Access = "public" | "signed" | "api-key" | "session";

export async function authorise(asset: CdnAsset, target: SignedTarget, credentials: Credentials): Promise<Access> {
  if (asset.visibility === "public") return "public";
  if (credentials.exp !== null || credentials.sig !== null) {
    const check = credentials.exp && credentials.sig ? await verify(target, credentials.exp, credentials.sig) : "invalid";
    if (check === "valid") return "signed";
    throw new ApiError(
      "asset/not-found",
      check === "expired"
        ? "The signed URL has expired; ask for a new one."
        : "Asset not found, or the signature does not match this URL (exp and sig must come unchanged from the signed-url endpoint).",
    );
  }
  if (credentials.apiKey !== null) {
    const key = await authenticateApiKey(credentials.apiKey);
    assertSameProject(key, asset.projectId);
    assertPermission(key, "assets:download");
    return "api-key";
  }
  if (credentials.sessionToken !== null && (await memberMayDownload(credentials.sessionToken, asset.projectId))) return "session";
  throw new ApiError(
    "asset/not-found",
    "Asset not found (a private asset needs a signed URL, an API key with assets:download, or the portal session of a project member).",
  );
}

/**
 * An asset that may not be served (rules 3 and 4): a public one says why with 403
 * asset/not-available; a private one answers 404, as if it did not exist.
 */
export function notServable(asset: Pick<CdnAsset, "visibility">, reason: string): ApiError {
  if (asset.visibility !== "public") return new ApiError("asset/not-found");
  return new ApiError("asset/not-available", `The asset is not available: ${reason}.`);
}

/** A session that is not valid, or a member without the permission, is no credential at all (404). */
async function memberMayDownload(sessionToken: string, projectId: string): Promise<boolean> {
  const user = await sessionUser(sessionToken);
  if (!user) return false;
  const member = await projectMembership(user.userId, projectId);
  return member?.permissions.includes("assets:download") ?? false;
}
