"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PortalProject, PortalUser, ReviewPreferences } from "@/lib/portal/types";
import { portalFetch } from "./portal-fetch";

export interface MeResponse {
  user: PortalUser;
  preferences: ReviewPreferences;
  projects: PortalProject[];
}

export const meKey = ["portal", "me"] as const;

/** Used until /me answers: the safe choices (media hidden, reminder at the documented default). */
export const DEFAULT_PREFERENCES: ReviewPreferences = { revealMediaByDefault: false, breakReminderAfter: 50 };

export function useMe() {
  return useQuery({ queryKey: meKey, queryFn: ({ signal }) => portalFetch<MeResponse>("/api/portal/me", { signal }) });
}

export function usePreferences(): ReviewPreferences {
  return useMe().data?.preferences ?? DEFAULT_PREFERENCES;
}

/** Saves preferences; the settings panel reflects the change at once and rolls back if refused. */
export function useUpdatePreferences() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: Partial<ReviewPreferences>) =>
      portalFetch<ReviewPreferences>("/api/portal/me/preferences", { method: "PUT", json: patch }),
    onMutate: async (patch) => {
      await queryClient.cancelQueries({ queryKey: meKey });
      const previous = queryClient.getQueryData<MeResponse>(meKey);
      if (previous) queryClient.setQueryData<MeResponse>(meKey, { ...previous, preferences: { ...previous.preferences, ...patch } });
      return { previous };
    },
    onError: (_error, _patch, context) => {
      if (context?.previous) queryClient.setQueryData(meKey, context.previous);
    },
    onSuccess: (preferences) => {
      queryClient.setQueryData<MeResponse>(meKey, (me) => (me ? { ...me, preferences } : me));
    },
  });
}
