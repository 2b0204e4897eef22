import type { ApiLens, EnsureLensRequest, LensType } from "@/lib/portal/types";
import { errorMessage, PortalFetchError } from "@/components/portal/portal-fetch";

/** The lens form's fields: one imageTransform step (the one transform type the CDN applies). */
export interface LensDraft {
  identifier: string;
  name: string;
  description: string;
  type: LensType;
  active: boolean;
  width: string;
  height: string;
  fit: string;
  format: string;
  quality: string;
}

const STEP_KEYS = ["width", "height", "fit", "format", "quality"] as const;

export const EMPTY_DRAFT: LensDraft = { identifier: "", name: "", description: "", type: "image", active: true, width: "", height: "", fit: "", format: "", quality: "" };

/** Lenses with more than one step are edited through the API; the form holds one. */
export const editableInForm = (lens: ApiLens) => (lens.transforms?.length ?? 0) <= 1;

export function draftOf(lens: ApiLens): LensDraft {
  const options = (lens.transforms?.[0]?.options ?? {}) as Record<string, unknown>;
  const field = (key: string) => (options[key] === undefined ? "" : String(options[key]));
  return { identifier: lens.identifier, name: lens.name, description: lens.description ?? "", type: lens.type, active: lens.active, ...Object.fromEntries(STEP_KEYS.map((k) => [k, field(k)])) } as LensDraft;
}

/** The draft's imageTransform options; numbers as numbers, so the API validates them. */
export function stepOf(draft: LensDraft): Record<string, string | number> {
  const step: Record<string, string | number> = {};
  for (const key of STEP_KEYS) {
    const value = draft[key].trim();
    if (value === "") continue;
    step[key] = key === "fit" || key === "format" ? value : Number(value);
  }
  return step;
}

export function requestOf(draft: LensDraft, version: number): EnsureLensRequest {
  const step = stepOf(draft);
  return {
    identifier: draft.identifier,
    name: draft.name,
    description: draft.description.trim() === "" ? null : draft.description,
    type: draft.type,
    active: draft.active,
    transforms: Object.keys(step).length === 0 ? null : [{ type: "imageTransform", options: step }],
    version,
  };
}

/**
 * The CDN's direct-transform selector for the draft (docs/api.md "CDN paths"), keys in the CDN's
 * canonical order (lib/cdn/selector.ts), or null when the draft has no option to apply.
 */
export function transformSelector(draft: LensDraft): string | null {
  const step = stepOf(draft);
  const pairs = STEP_KEYS.filter((key) => step[key] !== undefined).map((key) => `${key}=${step[key]}`);
  return pairs.length === 0 ? null : `imageTransform[${pairs.join(",")}]`;
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
