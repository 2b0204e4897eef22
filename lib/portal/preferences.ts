import { z } from "zod";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import type { ReviewPreferences } from "@/lib/portal/types";

/**
 * A reviewer's own settings, kept on their user row. Defaults are the protective ones: media
 * blurred and greyscale until revealed, a break suggested after 50 decisions.
 */
export const DEFAULT_PREFERENCES: ReviewPreferences = { revealMediaByDefault: false, breakReminderAfter: 50 };

export const preferencesPatch = z.strictObject({
  revealMediaByDefault: z.boolean().optional(),
  breakReminderAfter: z.number().int().min(0).max(10_000).optional().describe("0 turns the reminder off"),
});

const stored = z.object({ revealMediaByDefault: z.boolean(), breakReminderAfter: z.number().int().min(0) }).partial();

export function withDefaults(value: unknown): ReviewPreferences {
  const parsed = stored.safeParse(value);
  return { ...DEFAULT_PREFERENCES, ...(parsed.success ? parsed.data : {}) };
}

export async function reviewPreferences(userId: string): Promise<ReviewPreferences> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { reviewPreferences: true } });
  return withDefaults(user?.reviewPreferences);
}

/** Merges the patch into the stored preferences (the user's own tabs are the only writers). */
export async function updateReviewPreferences(userId: string, patch: z.infer<typeof preferencesPatch>): Promise<ReviewPreferences> {
  const next = { ...(await reviewPreferences(userId)), ...patch };
  await db().user.update({ where: { id: userId }, data: { reviewPreferences: next as unknown as Prisma.InputJsonValue } });
  return next;
}
