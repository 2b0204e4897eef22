/** What the usage page shows (lib/usage/report.ts computes it); no server code, so the browser may import it. */
export const USAGE_WINDOW_DAYS = [7, 30, 90] as const;
export type UsageWindow = (typeof USAGE_WINDOW_DAYS)[number];
export const DEFAULT_USAGE_WINDOW: UsageWindow = 30;

export interface DecisionDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  autoApproved: number;
  autoRejected: number;
  autoError: number;
  reviewerApproved: number;
  reviewerRejected: number;
}

export interface ReviewerThroughput {
  /** null: decisions made with an API key rather than by a person. */
  userId: string | null;
  name: string;
  decisions: number;
  approved: number;
  rejected: number;
  /** Days in the window with at least one decision by this reviewer. */
  activeDays: number;
  /** Median time from upload to this reviewer's decision, in seconds (null when unknown). */
  medianSecondsToDecision: number | null;
}

export interface ProjectUsage {
  windowDays: UsageWindow;
  allowance: { used: number; allowance: number; limitReachedAt: number | null; uploadsInProject: number };
  assetsByStatus: Record<string, number>;
  assetsByType: Record<string, number>;
  /** Assets in the review queue now (lib/portal/queue.ts: what needs a person's decision). */
  awaitingReview: number;
  decisionsPerDay: DecisionDay[];
  reviewers: ReviewerThroughput[];
}
