"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient, type QueryKey } from "@tanstack/react-query";
import type { AssetDetail, PortalFolder, QueueItem, QueuePage, ReviewBatch, ReviewRequest } from "@/lib/portal/types";
import { portalFetch, PortalFetchError } from "@/components/portal/portal-fetch";
import { queryKeys, reviewMutationKey } from "@/components/portal/query-keys";
import { queueSearchParams, type QueueFilters } from "./queue-filters-model";
import { recordReviewed } from "./session-count";

type QueueData = InfiniteData<QueuePage, string | null>;

const projectPath = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}`;

export function useQueue(projectId: string, filters: QueueFilters) {
  return useInfiniteQuery({
    queryKey: [...queryKeys.queueRoot(projectId), filters],
    queryFn: ({ pageParam, signal }) =>
      portalFetch<QueuePage>(`${projectPath(projectId)}/queue?${queueSearchParams(filters, pageParam)}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

export function useFolders(projectId: string) {
  return useQuery({
    queryKey: queryKeys.folders(projectId),
    queryFn: ({ signal }) => portalFetch<{ folders: PortalFolder[] }>(`${projectPath(projectId)}/folders`, { signal }),
    staleTime: 5 * 60_000,
  });
}

/** Where an optimistically removed item sat, so a failure can put it back in place. */
interface RemovedItem {
  queryKey: QueryKey;
  pageIndex: number;
  index: number;
  item: QueueItem;
}

/** Takes the given assets out of every cached queue page of the project (all filter combinations). */
function removeFromQueues(queryClient: QueryClient, projectId: string, assetIds: ReadonlySet<string>): RemovedItem[] {
  const removed: RemovedItem[] = [];
  for (const [queryKey, data] of queryClient.getQueriesData<QueueData>({ queryKey: queryKeys.queueRoot(projectId) })) {
    if (!data) continue;
    let changed = false;
    const pages = data.pages.map((page, pageIndex) => {
      if (!page.items.some((item) => assetIds.has(item.asset.id))) return page;
      changed = true;
      page.items.forEach((item, index) => {
        if (assetIds.has(item.asset.id)) removed.push({ queryKey, pageIndex, index, item });
      });
      return { ...page, items: page.items.filter((item) => !assetIds.has(item.asset.id)) };
    });
    if (changed) queryClient.setQueryData<QueueData>(queryKey, { ...data, pages });
  }
  return removed;
}

/**
 * Puts removed items back where they were. Only those items: restoring whole snapshots would also
 * resurrect items that other, successful decisions removed in the meantime.
 */
function restoreToQueues(queryClient: QueryClient, removed: readonly RemovedItem[]): void {
  const ordered = [...removed].sort((a, b) => a.pageIndex - b.pageIndex || a.index - b.index);
  for (const entry of ordered) {
    queryClient.setQueryData<QueueData>(entry.queryKey, (data) => {
      if (!data || data.pages.some((page) => page.items.some((item) => item.asset.id === entry.item.asset.id))) return data;
      const pages = data.pages.map((page, pageIndex) => {
        if (pageIndex !== Math.min(entry.pageIndex, data.pages.length - 1)) return page;
        const items = [...page.items];
        items.splice(Math.min(entry.index, items.length), 0, entry.item);
        return { ...page, items };
      });
      return { ...data, pages };
    });
  }
}

/**
 * After the server refused decisions (the asset changed meanwhile: 404, 409, 423), the restored
 * copies are stale: each is read again and shown as it is now (e.g. approved by someone else, its
 * Approve disabled), and its cached asset page is refreshed. A refused asset that is gone stays as
 * restored; the next queue refresh drops it.
 */
function refreshRefused(queryClient: QueryClient, projectId: string, assetIds: readonly string[]): void {
  for (const assetId of assetIds) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.asset(projectId, assetId) });
    void portalFetch<AssetDetail>(`${projectPath(projectId)}/assets/${encodeURIComponent(assetId)}`)
      .then((detail) => replaceInQueues(queryClient, projectId, detail.item))
      .catch(() => undefined);
  }
}

/** Puts the current copy of an item wherever the project's cached queues show it. */
function replaceInQueues(queryClient: QueryClient, projectId: string, current: QueueItem): void {
  for (const [queryKey, data] of queryClient.getQueriesData<QueueData>({ queryKey: queryKeys.queueRoot(projectId) })) {
    if (!data?.pages.some((page) => page.items.some((item) => item.asset.id === current.asset.id))) continue;
    const pages = data.pages.map((page) => ({ ...page, items: page.items.map((item) => (item.asset.id === current.asset.id ? current : item)) }));
    queryClient.setQueryData<QueueData>(queryKey, { ...data, pages });
  }
}

const isRefusal = (error: unknown) => error instanceof PortalFetchError && error.status >= 400 && error.status < 500 && error.status !== 401;

export interface ReviewVariables extends ReviewRequest {
  assetId: string;
}

export interface ReviewResult {
  item: QueueItem;
  inQueue: boolean;
}

/**
 * One approve/reject through the single review route. The item leaves every cached queue at once;
 * if the server refuses, it comes back (the caller shows why).
 */
export function useReviewDecision(projectId: string) {
  const queryClient = useQueryClient();
  const mutationKey = reviewMutationKey(projectId);
  return useMutation({
    mutationKey,
    mutationFn: ({ assetId, decision, note }: ReviewVariables) =>
      portalFetch<ReviewResult>(`${projectPath(projectId)}/assets/${encodeURIComponent(assetId)}/review`, {
        method: "POST",
        json: note?.trim() ? { decision, note: note.trim() } : { decision },
      }),
    onMutate: async ({ assetId }) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.queueRoot(projectId) });
      return { removed: removeFromQueues(queryClient, projectId, new Set([assetId])) };
    },
    onError: (error, { assetId }, context) => {
      if (context) restoreToQueues(queryClient, context.removed);
      if (isRefusal(error)) refreshRefused(queryClient, projectId, [assetId]);
    },
    onSuccess: (result, { assetId }) => {
      recordReviewed(1);
      queryClient.setQueryData<AssetDetail>(queryKeys.asset(projectId, assetId), (detail) =>
        detail ? { ...detail, item: result.item, inQueue: result.inQueue } : detail,
      );
      // The detail's event history gained the decision; refresh it in the background.
      void queryClient.invalidateQueries({ queryKey: queryKeys.asset(projectId, assetId) });
    },
    onSettled: (result) => {
      // An asset still in the queue after the decision (its reason changed) belongs back in the list,
      // but refetching while other decisions are in flight would resurrect those items too.
      if (result?.inQueue && queryClient.isMutating({ mutationKey }) === 1) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.queueRoot(projectId) });
      }
    },
  });
}

export interface BulkVariables extends ReviewRequest {
  assetIds: string[];
  onProgress?: (batch: ReviewBatch) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bulk decision: starts a review batch, then polls it until it completes (backing off from 0.5 s
 * to 3 s). Items leave the queue at once; failed ones come back when the batch reports them.
 */
export function useBulkReview(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: reviewMutationKey(projectId),
    mutationFn: async ({ assetIds, decision, note, onProgress }: BulkVariables) => {
      let batch = await portalFetch<ReviewBatch>(`${projectPath(projectId)}/review-batches`, {
        method: "POST",
        json: note?.trim() ? { assetIds, decision, note: note.trim() } : { assetIds, decision },
      });
      let delay = 500;
      while (batch.status !== "completed") {
        onProgress?.(batch);
        await sleep(delay);
        delay = Math.min(delay * 1.5, 3000);
        batch = await portalFetch<ReviewBatch>(`${projectPath(projectId)}/review-batches/${encodeURIComponent(batch.id)}`);
      }
      return batch;
    },
    onMutate: async ({ assetIds }) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.queueRoot(projectId) });
      return { removed: removeFromQueues(queryClient, projectId, new Set(assetIds)) };
    },
    onError: (_error, _variables, context) => {
      if (context) restoreToQueues(queryClient, context.removed);
    },
    onSuccess: (batch, _variables, context) => {
      recordReviewed(batch.counts.succeeded);
      const failed = new Set(batch.items.filter((item) => item.status === "failed").map((item) => item.assetId));
      if (context) restoreToQueues(queryClient, context.removed.filter((entry) => failed.has(entry.item.asset.id)));
      refreshRefused(queryClient, projectId, [...failed]);
      for (const item of batch.items) {
        if (item.status === "succeeded") void queryClient.invalidateQueries({ queryKey: queryKeys.asset(projectId, item.assetId) });
      }
    },
  });
}
