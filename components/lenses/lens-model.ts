import type { ApiLens, EnsureLensRequest, LensType } from "@/lib/portal/types";
import { errorMessage, PortalFetchError } from "@/components/portal/portal-fetch";

/** One imageTransform step of the form (the one transform type the CDN applies), as typed. */
export interface StepDraft {
  width: string;
  height: string;
  fit: string;
  format: string;
  quality: string;
}

/** The lens form's fields; a lens applies its steps in order (the API allows up to MAX_STEPS). */
export interface LensDraft {
  identifier: string;
  name: string;
  description: string;
  type: LensType;
  active: boolean;
  steps: StepDraft[];
}

export const MAX_STEPS = 20;
export const STEP_KEYS = ["width", "height", "fit", "format", "quality"] as const;

export const EMPTY_STEP: StepDraft = { width: "", height: "", fit: "", format: "", quality: "" };
export const EMPTY_DRAFT: LensDraft = { identifier: "", name: "", description: "", type: "image", active: true, steps: [EMPTY_STEP] };

function stepDraftOf(options: unknown): StepDraft {
  const values = (options ?? {}) as Record<string, unknown>;
  return Object.fromEntries(STEP_KEYS.map((key) => [key, values[key] === undefined ? "" : String(values[key])])) as unknown as StepDraft;
}

export function draftOf(lens: ApiLens): LensDraft {
  const steps = (lens.transforms ?? []).map((transform) => stepDraftOf(transform.options));
  return { identifier: lens.identifier, name: lens.name, description: lens.description ?? "", type: lens.type, active: lens.active, steps: steps.length > 0 ? steps : [EMPTY_STEP] };
}

/** A step's imageTransform options; numbers as numbers, so the API validates them. */
export function stepOptions(step: StepDraft): Record<string, string | number> {
  const options: Record<string, string | number> = {};
  for (const key of STEP_KEYS) {
    const value = step[key].trim();
    if (value === "") continue;
    options[key] = key === "fit" || key === "format" ? value : Number(value);
  }
  return options;
}

/** The steps that do something; an empty step is left out rather than saved as a no-op. */
const filledSteps = (draft: LensDraft) => draft.steps.map(stepOptions).filter((options) => Object.keys(options).length > 0);

export function requestOf(draft: LensDraft, version: number): EnsureLensRequest {
  const steps = filledSteps(draft);
  return {
    identifier: draft.identifier,
    name: draft.name,
    description: draft.description.trim() === "" ? null : draft.description,
    type: draft.type,
    active: draft.active,
    transforms: steps.length === 0 ? null : steps.map((options) => ({ type: "imageTransform", options })),
    version,
  };
}

/**
 * The CDN's direct-transform selector for the draft (docs/api.md "CDN paths"), keys in the CDN's
 * canonical order (lib/cdn/selector.ts); null when the draft has no option to apply, or more than
 * one step (a direct transform is a single step: such a draft is previewed once saved).
 */
export function transformSelector(draft: LensDraft): string | null {
  const steps = filledSteps(draft);
  if (steps.length !== 1) return null;
  const step = steps[0]!;
  const pairs = STEP_KEYS.filter((key) => step[key] !== undefined).map((key) => `${key}=${step[key]}`);
  return `imageTransform[${pairs.join(",")}]`;
}

export function cdnUrl(projectId: string, assetId: string, selector: string): string {
  return `/cdn/v1/assets/${encodeURIComponent(projectId)}/${encodeURIComponent(assetId)}/content/${selector}`;
}

export const isVersionConflict = (error: unknown) => error instanceof PortalFetchError && error.code === "lens/version-conflict";

/** A save's failure in words; a version conflict names the version someone else saved. */
export function saveErrorText(error: unknown): string {
  if (error instanceof PortalFetchError && isVersionConflict(error)) {
    const current = /is at version (\d+)/.exec(error.message)?.[1];
    return `Someone changed this lens meanwhile — reload to see version ${current ?? "the newest"}, then make your change again.`;
  }
  return errorMessage(error).replace(/^Invalid request: body\./, "Check ");
}
