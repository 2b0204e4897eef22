"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import type { PortalLens, PortalLensList } from "@/lib/portal/types";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { useSaveLens } from "./hooks";
import { LensPreview } from "./lens-preview";
import { draftOf, EMPTY_DRAFT, isVersionConflict, requestOf, saveErrorText, transformSelector, type LensDraft } from "./lens-model";
import { LensSteps } from "./lens-steps";

const TYPES = ["image", "video", "audio", "document", "website"] as const;

interface Props {
  projectId: string;
  /** The lens to edit (saved as version + 1); absent to create one at version 1. */
  lens?: PortalLens;
  previewAssets: PortalLensList["previewAssets"];
  onDone: (message: string) => void;
  onCancel: () => void;
  /** Reopens the form on the lens as saved now (after a version conflict). */
  onReload: () => void;
}

export function LensForm({ projectId, lens, previewAssets, onDone, onCancel, onReload }: Props) {
  const id = useId();
  const save = useSaveLens(projectId);
  const [draft, setDraft] = useState<LensDraft>(lens ? draftOf(lens) : EMPTY_DRAFT);
  const set = <K extends keyof LensDraft>(key: K, value: LensDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const nextVersion = (lens?.version ?? 0) + 1;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(requestOf(draft, nextVersion), { onSuccess: ({ lens: saved }) => onDone(`Saved ${saved.identifier} as version ${saved.version}.`) });
  };
  const field = (key: keyof LensDraft, label: string, input: ReactNode) => (
    <div className="space-y-1">
      <label htmlFor={`${id}-${key}`} className={labelClass}>
        {label}
      </label>
      {input}
    </div>
  );
  const text = (key: "identifier" | "name" | "description", extra: Record<string, unknown> = {}) => (
    <input id={`${id}-${key}`} className={inputClass} value={draft[key]} onChange={(e) => set(key, e.target.value)} {...extra} />
  );
  const select = (key: "type", options: readonly string[], empty: string) => (
    <select id={`${id}-${key}`} className={inputClass} value={draft[key]} onChange={(e) => set(key, e.target.value as never)}>
      {options.map((o) => (
        <option key={o} value={o}>
          {o === "" ? empty : o}
        </option>
      ))}
    </select>
  );
  const savedServed = lens && lens.active && lens.type === "image";

  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="lens-form" className="space-y-4 rounded-lg border border-slate-300 bg-white p-4">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
        {lens ? `Edit ${lens.identifier} (version ${lens.version} → ${nextVersion})` : "New lens"}
      </h2>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        {field("identifier", "Identifier", text("identifier", { required: true, readOnly: Boolean(lens), pattern: "[a-z0-9-]{1,50}", "aria-describedby": `${id}-identifier-hint` }))}
        {field("name", "Name", text("name", { required: true, maxLength: 200 }))}
        {field("type", "Asset type", select("type", TYPES, ""))}
      </div>
      <p id={`${id}-identifier-hint`} className="-mt-2 text-xs text-slate-700">
        Lowercase letters, digits and hyphens; used in CDN URLs as <code>@identifier</code>{lens ? " and fixed once created" : ""}.
      </p>
      {field("description", "Description (optional)", text("description", { maxLength: 2000 }))}
      <LensSteps steps={draft.steps} onChange={(steps) => set("steps", steps)} />
      <label className="flex items-center gap-2 text-sm text-slate-900">
        <input type="checkbox" className="size-4" checked={draft.active} onChange={(e) => set("active", e.target.checked)} />
        Active (the CDN serves only active lenses)
      </label>
      <LensPreview
        projectId={projectId}
        assets={previewAssets}
        savedSelector={savedServed ? `@${lens.identifier}` : null}
        savedNote={lens ? "Not served: the saved lens is inactive or not an image lens." : "Not saved yet."}
        draftSelector={draft.type === "image" ? transformSelector(draft) : null}
        draftNote={
          draft.type !== "image"
            ? "Only image lenses are previewed as a direct transform."
            : draft.steps.length > 1
              ? "A direct transform is one step: save the lens to preview its chain."
              : "No transform option set: the CDN would serve the original."
        }
      />
      {save.isError ? (
        <p role="alert" data-testid="lens-form-error" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          Could not save: {saveErrorText(save.error)}
          {isVersionConflict(save.error) ? (
            <button type="button" className={buttonClass("secondary", "ml-2")} onClick={onReload}>
              Reload the saved lens
            </button>
          ) : null}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClass("primary")} disabled={save.isPending}>
          {save.isPending ? "Saving…" : lens ? `Save as version ${nextVersion}` : "Create lens"}
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
