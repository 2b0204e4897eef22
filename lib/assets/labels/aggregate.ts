import type { FrameLabels } from "@/lib/assets/field-schemas";

/**
 * From what each frame shows to what the asset shows (an image is one frame), and to the terms
 * natural-language search reads (asset_labels).
 */

/** Colours below this share of an asset are not worth naming. */
export const MIN_COLOUR_FRACTION = 0.05;
/** A colour covering this share of the image or more matches a colour query fully. */
export const COLOUR_FULL_SHARE = 0.25;

/** Objects: highest confidence and most seen in one frame; colours: mean share; faces: most in one frame. */
export function aggregateFrames(frames: readonly FrameLabels[]): FrameLabels {
  const objects = new Map<string, { confidence: number; count: number }>();
  const colours = new Map<string, number>();
  let faces = 0;
  for (const frame of frames) {
    for (const o of frame.objects) {
      const seen = objects.get(o.label);
      objects.set(o.label, { confidence: Math.max(seen?.confidence ?? 0, o.confidence), count: Math.max(seen?.count ?? 0, o.count) });
    }
    for (const c of frame.colours) colours.set(c.name, (colours.get(c.name) ?? 0) + c.fraction / frames.length);
    faces = Math.max(faces, frame.faces);
  }
  return {
    objects: [...objects].map(([label, o]) => ({ label, ...o })).sort((a, b) => b.confidence - a.confidence || a.label.localeCompare(b.label)),
    colours: [...colours]
      .filter(([, fraction]) => fraction >= MIN_COLOUR_FRACTION)
      .map(([name, fraction]) => ({ name, fraction: round(fraction) }))
      .sort((a, b) => b.fraction - a.fraction || a.name.localeCompare(b.name)),
    faces,
  };
}

export interface LabelTerm {
  term: string;
  score: number;
  count: number;
}

export function searchTerms(labels: FrameLabels): LabelTerm[] {
  return [
    ...labels.objects.map((o) => ({ term: `object:${o.label}`, score: o.confidence, count: o.count })),
    ...labels.colours.map((c) => ({ term: `colour:${c.name}`, score: Math.min(1, c.fraction / COLOUR_FULL_SHARE), count: 1 })),
    ...(labels.faces > 0 ? [{ term: "face", score: 1, count: labels.faces }] : []),
  ];
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
