/** React Query keys shared by the review and asset features (a decision in one updates the other). */
export const queryKeys = {
  queueRoot: (projectId: string) => ["portal", "queue", projectId] as const,
  folders: (projectId: string) => ["portal", "folders", projectId] as const,
  asset: (projectId: string, assetId: string) => ["portal", "asset", projectId, assetId] as const,
};

export const reviewMutationKey = (projectId: string) => ["portal", "review", projectId] as const;
