import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import type { DecisionDay, ProjectUsage, ReviewerThroughput, UsageWindow } from "@/lib/usage/usage-types";

/**
 * A project's usage for the owner console: the owner's upload allowance, the project's assets by
 * status and type, decisions per day (the pipeline's and people's, from the events table) and the
 * reviewers' throughput. Days are UTC calendar days; the window ends today.
 */
export const SELECT_ALLOWANCE = `
SELECT c.uploads_used AS used, COALESCE(c.upload_allowance, $2::int) AS allowance, c.limit_reached_at AS "reachedAt",
       (SELECT count(*)::int FROM events e WHERE e.project_id = $1::uuid AND e.type = 'asset.uploaded') AS "inProject"
  FROM projects p LEFT JOIN usage_counters c ON c.owner_user_id = p.owner_user_id
 WHERE p.id = $1::uuid`;

/** Top-level assets only: extracted parts (frames, pages) are not uploads. */
export const SELECT_ASSET_COUNTS = `
SELECT status::text AS status, type::text AS type, count(*)::int AS n
  FROM assets WHERE project_id = $1::uuid AND parent_id IS NULL
 GROUP BY status, type`;

/** The pipeline's verdicts (asset.classified, its snapshot status) and people's (approved/rejected). */
export const SELECT_DECISIONS_PER_DAY = `
SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
       count(*) FILTER (WHERE type = 'asset.classified' AND asset->>'status' = 'approved')::int AS "autoApproved",
       count(*) FILTER (WHERE type = 'asset.classified' AND asset->>'status' = 'rejected')::int AS "autoRejected",
       count(*) FILTER (WHERE type = 'asset.classified' AND asset->>'status' = 'error')::int AS "autoError",
       count(*) FILTER (WHERE type = 'asset.approved')::int AS "reviewerApproved",
       count(*) FILTER (WHERE type = 'asset.rejected')::int AS "reviewerRejected"
  FROM events
 WHERE project_id = $1::uuid AND type IN ('asset.classified', 'asset.approved', 'asset.rejected')
   AND created_at >= $2::timestamptz
 GROUP BY 1`;

/** People's decisions by reviewer; the user id is the event's (null when an API key decided). */
export const SELECT_REVIEWER_THROUGHPUT = `
SELECT e.user_id AS "userId", COALESCE(NULLIF(btrim(u.name), ''), u.email) AS name,
       count(*)::int AS decisions,
       count(*) FILTER (WHERE e.type = 'asset.approved')::int AS approved,
       count(*) FILTER (WHERE e.type = 'asset.rejected')::int AS rejected,
       count(DISTINCT date_trunc('day', e.created_at AT TIME ZONE 'UTC'))::int AS "activeDays",
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM e.created_at - a.created_at)) AS "medianSeconds"
  FROM events e
  LEFT JOIN users u ON u.id = e.user_id
  LEFT JOIN assets a ON a.id = e.asset_id
 WHERE e.project_id = $1::uuid AND e.type IN ('asset.approved', 'asset.rejected') AND e.created_at >= $2::timestamptz
 GROUP BY e.user_id, u.name, u.email
 ORDER BY decisions DESC, name`;

const DAY_MS = 86_400_000;

/** The first UTC midnight of a window of `days` days that ends today. */
export function windowStart(now: number, days: number): Date {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return new Date(today - (days - 1) * DAY_MS);
}

/** Every day of the window, oldest first, with zeros where nothing was decided. */
export function fillDays(start: Date, days: number, rows: readonly DecisionDay[]): DecisionDay[] {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, autoApproved: 0, autoRejected: 0, autoError: 0, reviewerApproved: 0, reviewerRejected: 0 };
  });
}

export async function projectUsage(projectId: string, windowDays: UsageWindow, now = Date.now()): Promise<Omit<ProjectUsage, "awaitingReview">> {
  const start = windowStart(now, windowDays);
  const pool = sqlPool();
  const [allowance, assets, days, reviewers] = await Promise.all([
    pool.query<{ used: number | null; allowance: number; reachedAt: Date | null; inProject: number }>(SELECT_ALLOWANCE, [projectId, config().freeUploadAllowance]),
    pool.query<{ status: string; type: string; n: number }>(SELECT_ASSET_COUNTS, [projectId]),
    pool.query<DecisionDay>(SELECT_DECISIONS_PER_DAY, [projectId, start]),
    pool.query<Omit<ReviewerThroughput, "medianSecondsToDecision"> & { medianSeconds: number | null }>(SELECT_REVIEWER_THROUGHPUT, [projectId, start]),
  ]);
  const counter = allowance.rows[0];
  const assetsByStatus: Record<string, number> = {};
  const assetsByType: Record<string, number> = {};
  for (const row of assets.rows) {
    assetsByStatus[row.status] = (assetsByStatus[row.status] ?? 0) + row.n;
    assetsByType[row.type] = (assetsByType[row.type] ?? 0) + row.n;
  }
  return {
    windowDays,
    allowance: {
      used: counter?.used ?? 0,
      allowance: counter?.allowance ?? config().freeUploadAllowance,
      limitReachedAt: counter?.reachedAt ? counter.reachedAt.getTime() : null,
      uploadsInProject: counter?.inProject ?? 0,
    },
    assetsByStatus,
    assetsByType,
    decisionsPerDay: fillDays(start, windowDays, days.rows),
    reviewers: reviewers.rows.map(({ medianSeconds, ...row }) => ({
      ...row,
      name: row.userId === null ? "API keys" : (row.name ?? "Former user"),
      medianSecondsToDecision: medianSeconds === null ? null : Math.round(Number(medianSeconds)),
    })),
  };
}
