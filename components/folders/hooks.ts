"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { FolderAssetFilters, FolderAssetPage, MoveAssetsResult, PortalFolder } from "@/lib/portal/types";
import { portalFetch } from "@/components/portal/portal-fetch";
import { queryKeys } from "@/components/portal/query-keys";

export { useFolders } from "@/components/review/hooks";

const foldersPath = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}/folders`;

/** The asset list of one folder; kept under the folders key so any folder change refreshes it too. */
export function useFolderAssets(projectId: string, filters: FolderAssetFilters) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== "") params.set(key, String(value));
  return useQuery({
    queryKey: [...queryKeys.folders(projectId), "assets", filters],
    queryFn: ({ signal }) => portalFetch<FolderAssetPage>(`${foldersPath(projectId)}/assets?${params}`, { signal }),
    // Paging and filtering keep the old rows on screen (marked busy) instead of flashing a spinner.
    placeholderData: keepPreviousData,
  });
}

/**
 * A folder change. Afterwards the project's folders (the tree, the review queue's folder filter)
 * and the folder asset lists are read again; the queue shows folders by id, so it needs nothing else.
 */
function useFolderMutation<V, R>(projectId: string, request: (path: string, variables: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: V) => request(foldersPath(projectId), variables),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.folders(projectId) }),
  });
}

export const useCreateFolder = (projectId: string) =>
  useFolderMutation(projectId, (path, body: { name: string; parentId: string | null }) =>
    portalFetch<PortalFolder>(path, { method: "POST", json: body }),
  );

export const useRenameFolder = (projectId: string) =>
  useFolderMutation(projectId, (path, { id, name }: { id: string; name: string }) =>
    portalFetch<PortalFolder>(`${path}/${encodeURIComponent(id)}`, { method: "PATCH", json: { name } }),
  );

export const useMoveFolder = (projectId: string) =>
  useFolderMutation(projectId, (path, { id, parentId }: { id: string; parentId: string | null }) =>
    portalFetch<PortalFolder>(`${path}/${encodeURIComponent(id)}/move`, { method: "POST", json: { parentId } }),
  );

// No body, but the portal's CSRF check wants every write to declare JSON (a form cannot).
const JSON_WRITE = { "Content-Type": "application/json" };

export const useDeleteFolder = (projectId: string) =>
  useFolderMutation(projectId, (path, id: string) => portalFetch<object>(`${path}/${encodeURIComponent(id)}`, { method: "DELETE", headers: JSON_WRITE }));

/** Moves assets into a folder (null: out of any folder); the moved assets' pages are read again too. */
export function useMoveAssets(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { folderId: string | null; assetIds: string[] }) =>
      portalFetch<MoveAssetsResult>(`${foldersPath(projectId)}/assets/move`, { method: "POST", json: body }),
    onSettled: (result) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.folders(projectId) });
      for (const assetId of result?.moved ?? []) void queryClient.invalidateQueries({ queryKey: queryKeys.asset(projectId, assetId) });
    },
  });
}
