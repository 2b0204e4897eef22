"use client";

import { useQuery } from "@tanstack/react-query";
import type { AssetDetail } from "@/lib/portal/types";
import { portalFetch } from "@/components/portal/portal-fetch";
import { queryKeys } from "@/components/portal/query-keys";

export function useAssetDetail(projectId: string, assetId: string) {
  return useQuery({
    queryKey: queryKeys.asset(projectId, assetId),
    queryFn: ({ signal }) =>
      portalFetch<AssetDetail>(`/api/portal/projects/${encodeURIComponent(projectId)}/assets/${encodeURIComponent(assetId)}`, { signal }),
  });
}

// Decisions on the detail page use the queue's hook, so the queue's cache and the session count
// stay in step whichever page the reviewer decides on.
export { useReviewDecision } from "@/components/review/hooks";
