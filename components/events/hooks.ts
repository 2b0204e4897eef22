"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InboxPage, UnreadCount } from "@/lib/portal/types";
import { portalFetch } from "@/components/portal/portal-fetch";
import { inboxSearchParams, type InboxFilters } from "./filters-model";

/** How often the inbox and the navigation's count ask for news (new events, marks made elsewhere). */
export const POLL_MS = 4_000;

const eventsPath = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}/events`;
export const eventsKey = (projectId: string) => ["portal", "events", projectId] as const;
const unreadKey = (projectId: string) => [...eventsKey(projectId), "unread"] as const;

/**
 * The inbox, newest first. Polling refetches the loaded pages from the top, so new events appear
 * above the ones shown (the browser's scroll anchoring keeps the reader's place) and marks made in
 * another tab show up.
 */
export function useInbox(projectId: string, filters: InboxFilters) {
  return useInfiniteQuery({
    queryKey: [...eventsKey(projectId), "inbox", filters],
    queryFn: ({ pageParam, signal }) => portalFetch<InboxPage>(`${eventsPath(projectId)}?${inboxSearchParams(filters, pageParam)}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: POLL_MS,
  });
}

export function useUnreadCount(projectId: string) {
  return useQuery({
    queryKey: unreadKey(projectId),
    queryFn: ({ signal }) => portalFetch<UnreadCount>(`${eventsPath(projectId)}/unread-count`, { signal }),
    refetchInterval: POLL_MS,
  });
}

export type MarkRequest = { eventIds: string[]; read: boolean } | { all: true };

/** Marks events read or unread (or all read), then refreshes the inbox and the count. */
export function useMarkEvents(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: MarkRequest) =>
      "all" in request
        ? portalFetch<{ updated: number }>(`${eventsPath(projectId)}/read-all`, { method: "POST", json: {} })
        : portalFetch<{ updated: number }>(`${eventsPath(projectId)}/read`, { method: "POST", json: request }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: eventsKey(projectId) }),
  });
}
