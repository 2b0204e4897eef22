import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { CATEGORIES, type Category } from "./report";
import { MODERATION_ACTIONS } from "@/lib/assets/schemas";
import {
  DEFAULT_ACTION,
  resolveThresholds,
  thresholdOverridesSchema,
  UNANALYSABLE_ACTIONS,
  type ModerationAction,
  type ThresholdOverrides,
  type UnanalysableAction,
} from "./policy";

/**
 * A project's moderation settings, managed with `admin set-moderation`: per-category flagging
 * thresholds, the action for flagged content when an upload names none, and whether content is
 * kept after processing when an upload does not say, and what happens to an asset that could not be
 * fully analysed (fail closed: `reject` by default).
 */
export interface ModerationSettings {
  projectId: string;
  thresholds: Record<Category, number>;
  thresholdOverrides: ThresholdOverrides;
  defaultAction: ModerationAction;
  keepContentByDefault: boolean;
  unanalysable: UnanalysableAction;
}

export interface SettingsChange {
  /** Category → threshold (0..1); null resets all to the defaults. */
  thresholds?: ThresholdOverrides | null;
  defaultAction?: ModerationAction;
  keepContentByDefault?: boolean;
  unanalysable?: UnanalysableAction;
}

/** Parses `violence=0.8,hate=0.5` (or `default`) into overrides; throws a readable error. */
export function parseThresholds(text: string): ThresholdOverrides | null {
  if (text.trim() === "default") return null;
  const entries = text.split(",").map((part) => {
    const [key, value, ...rest] = part.split("=").map((s) => s.trim());
    if (!key || value === undefined || rest.length) throw new Error(`Threshold "${part}" must look like category=0.8`);
    if (!(CATEGORIES as readonly string[]).includes(key)) throw new Error(`Unknown category "${key}" (one of ${CATEGORIES.join(", ")})`);
    const score = Number(value);
    if (value === "" || !Number.isFinite(score) || score < 0 || score > 1) throw new Error(`Threshold of ${key} must be a number from 0 to 1`);
    return [key, score] as const;
  });
  return thresholdOverridesSchema.parse(Object.fromEntries(entries));
}

export function parseAction(text: string): ModerationAction {
  if (!(MODERATION_ACTIONS as readonly string[]).includes(text)) throw new Error(`Action must be one of ${MODERATION_ACTIONS.join(", ")}`);
  return text as ModerationAction;
}

export function parseUnanalysableAction(text: string): UnanalysableAction {
  if (!(UNANALYSABLE_ACTIONS as readonly string[]).includes(text)) throw new Error(`--unanalysable must be one of ${UNANALYSABLE_ACTIONS.join(", ")}`);
  return text as UnanalysableAction;
}

export async function setModerationSettings(projectId: string, change: SettingsChange): Promise<ModerationSettings> {
  const current = await db().project.findUnique({ where: { id: projectId } });
  if (!current) throw new Error(`Project ${projectId} not found`);
  const overrides =
    change.thresholds === undefined
      ? (thresholdOverridesSchema.safeParse(current.moderationThresholds).data ?? {})
      : { ...(thresholdOverridesSchema.safeParse(current.moderationThresholds).data ?? {}), ...(change.thresholds ?? {}) };
  const reset = change.thresholds === null;
  const project = await db().project.update({
    where: { id: projectId },
    data: {
      ...(change.thresholds !== undefined && { moderationThresholds: reset ? Prisma.DbNull : overrides }),
      ...(change.defaultAction !== undefined && { defaultModerationAction: change.defaultAction }),
      ...(change.keepContentByDefault !== undefined && { keepContentByDefault: change.keepContentByDefault }),
      ...(change.unanalysable !== undefined && { unanalysableAction: change.unanalysable }),
    },
  });
  const saved = thresholdOverridesSchema.safeParse(project.moderationThresholds).data ?? {};
  return {
    projectId,
    thresholds: { ...resolveThresholds(saved) },
    thresholdOverrides: saved,
    defaultAction: project.defaultModerationAction ?? DEFAULT_ACTION,
    keepContentByDefault: project.keepContentByDefault,
    unanalysable: project.unanalysableAction,
  };
}
