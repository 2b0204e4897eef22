"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { portalFetch } from "@/components/portal/portal-fetch";
import type { ProjectUsage, UsageWindow } from "@/lib/usage/usage-types";

export const usageKey = (projectId: string, days: UsageWindow) => ["portal", "usage", projectId, days] as const;

/** The project's usage; refreshed every half minute while the page is open (decisions keep coming). */
export function useUsage(projectId: string, days: UsageWindow) {
  return useQuery({
    queryKey: usageKey(projectId, days),
    queryFn: ({ signal }) => portalFetch<ProjectUsage>(`/api/portal/projects/${projectId}/usage?days=${days}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}
