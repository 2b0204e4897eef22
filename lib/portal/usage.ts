import { queueSize } from "@/lib/portal/queue";
import { projectUsage } from "@/lib/usage/report";
import type { ProjectUsage, UsageWindow } from "@/lib/usage/usage-types";

/** The usage page's numbers: the usage report plus the review queue's length, as the queue counts it. */
export async function portalUsage(projectId: string, windowDays: UsageWindow): Promise<ProjectUsage> {
  const [usage, awaitingReview] = await Promise.all([projectUsage(projectId, windowDays), queueSize(projectId)]);
  return { ...usage, awaitingReview };
}
