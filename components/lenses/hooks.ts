"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiLens, EnsureLensRequest, PortalLensList } from "@/lib/portal/types";
import { portalFetch } from "@/components/portal/portal-fetch";

export const lensKeys = { list: (projectId: string) => ["portal", "lenses", projectId] as const };

const base = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}/lenses`;

export function useLenses(projectId: string) {
  return useQuery({ queryKey: lensKeys.list(projectId), queryFn: ({ signal }) => portalFetch<PortalLensList>(base(projectId), { signal }) });
}

/** Ensure Lens: creates, or updates with a greater version; the list refreshes either way. */
export function useSaveLens(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: EnsureLensRequest) =>
      portalFetch<{ lens: ApiLens }>(`${base(projectId)}/${encodeURIComponent(body.identifier)}`, { method: "PUT", json: body }),
    onSettled: () => client.invalidateQueries({ queryKey: lensKeys.list(projectId) }),
  });
}
