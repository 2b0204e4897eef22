"use client";

import { useId } from "react";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { EMPTY_STEP, MAX_STEPS, type StepDraft } from "./lens-model";

const FITS = ["", "cover", "contain", "fill", "inside", "outside"] as const;
const FORMATS = ["", "webp", "avif", "jpeg", "png", "gif"] as const;

/**
 * The lens's image transform steps, applied in order by the CDN. With one step the labels read as
 * before ("Width (px)"); with several, each step is its own fieldset ("Step 2") with Remove.
 */
export function LensSteps({ steps, onChange }: { steps: StepDraft[]; onChange: (steps: StepDraft[]) => void }) {
  const id = useId();
  const update = (index: number, key: keyof StepDraft, value: string) => onChange(steps.map((step, i) => (i === index ? { ...step, [key]: value } : step)));
  const text = (index: number, key: "width" | "height" | "quality", label: string) => (
    <div className="space-y-1">
      <label htmlFor={`${id}-${index}-${key}`} className={labelClass}>
        {label}
      </label>
      <input id={`${id}-${index}-${key}`} className={inputClass} inputMode="numeric" value={steps[index]![key]} onChange={(e) => update(index, key, e.target.value)} />
    </div>
  );
  const select = (index: number, key: "fit" | "format", label: string, options: readonly string[], empty: string) => (
    <div className="space-y-1">
      <label htmlFor={`${id}-${index}-${key}`} className={labelClass}>
        {label}
      </label>
      <select id={`${id}-${index}-${key}`} className={inputClass} value={steps[index]![key]} onChange={(e) => update(index, key, e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o === "" ? empty : o}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <div className="space-y-2">
      {steps.map((_, index) => (
        <fieldset key={index} className="space-y-2" data-testid="lens-step">
          <legend className="flex w-full items-center justify-between gap-2 text-sm font-medium text-slate-800">
            {steps.length === 1 ? "Image transform" : `Step ${index + 1} of ${steps.length}`}
            {steps.length > 1 ? (
              <button type="button" className={buttonClass("ghost")} onClick={() => onChange(steps.filter((__, i) => i !== index))}>
                Remove step {index + 1}
              </button>
            ) : null}
          </legend>
          <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
            {text(index, "width", "Width (px)")}
            {text(index, "height", "Height (px)")}
            {select(index, "fit", "Fit", FITS, "default")}
            {select(index, "format", "Format", FORMATS, "as stored")}
            {text(index, "quality", "Quality (1–100)")}
          </div>
        </fieldset>
      ))}
      {steps.length < MAX_STEPS ? (
        <button type="button" className={buttonClass("secondary")} onClick={() => onChange([...steps, EMPTY_STEP])}>
          Add a step
        </button>
      ) : null}
    </div>
  );
}
