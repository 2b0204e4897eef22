import path from "node:path";
import type { AssetDraft } from "@/lib/assets/draft";
import { checkDraft, ingestContent } from "@/lib/assets/ingest";
import { config } from "@/lib/core/config";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { safeFetch } from "@/lib/net/safe-fetch";
import { withUploadUnit } from "@/lib/usage/allowance";

/** Variant C: fetches the URL with SSRF protection and size/time caps, then ingests the bytes. */
export async function createAssetFromUrl(draft: AssetDraft, url: string): Promise<AssetRow> {
  // The request's own checks (folder, externalId, allowance) come before any network I/O.
  await checkDraft(draft, { checkAllowance: false });
  return withUploadUnit(draft.projectId, draft.ownerUserId, async () => {
    const cfg = config();
    const response = await safeFetch(url, {
      allowPrivateNetworks: cfg.allowPrivateNetworks,
      timeoutMs: cfg.remoteFetch.timeoutMs,
      maxRedirects: cfg.remoteFetch.maxRedirects,
      maxBytes: cfg.limits.maxUploadBytes,
    });
    const fileName = path.posix.basename(new URL(response.url).pathname) || null;
    return ingestContent(
      { ...draft, sourceUrl: response.url, fields: { ...draft.fields, externalUrl: draft.fields.externalUrl ?? url } },
      { source: response.body, declaredType: response.contentType, fileName },
    );
  });
}
