"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { portalFetch } from "@/components/portal/portal-fetch";
import type { CreateApiKeyRequest, CreatedApiKey, PortalApiKey } from "@/lib/portal/types";

export const apiKeysKey = (projectId: string) => ["portal", "keys", projectId] as const;
const keysPath = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}/keys`;

export function useApiKeys(projectId: string) {
  return useQuery({
    queryKey: apiKeysKey(projectId),
    queryFn: ({ signal }) => portalFetch<{ keys: PortalApiKey[] }>(keysPath(projectId), { signal }),
  });
}

export function useCreateApiKey(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: CreateApiKeyRequest) => portalFetch<CreatedApiKey>(keysPath(projectId), { method: "POST", json: request }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: apiKeysKey(projectId) }),
  });
}

export function useRevokeApiKey(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) =>
      portalFetch<{ key: PortalApiKey }>(`${keysPath(projectId)}/${encodeURIComponent(keyId)}/revoke`, { method: "POST", json: {} }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: apiKeysKey(projectId) }),
  });
}
