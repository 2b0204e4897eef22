/**
 * Named colours of an image from its pixels: every pixel of a small thumbnail (COLOUR_SAMPLE_SIZE²,
 * the whole picture stretched, so each part weighs by its area) gets the name of its colour, and
 * the names covering at least COLOUR_MIN_FRACTION of the pixels are reported, largest share first.
 *
 * Names come from hue/saturation/value rules (HSV of sRGB), the way people name colours rather
 * than nearest-point in some space: achromatic pixels first (black by value, white and gray by
 * value among the unsaturated), then hue bands, with brown for dark or greyish oranges and reds and
 * pink for light, washed-out reds and magentas. Eleven names, the basic colour terms of English
 * (Berlin & Kay): red, orange, yellow, green, blue, purple, pink, brown, black, white, gray.
 */

export const COLOUR_NAMES = ["red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "gray"] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];

export interface ColourLabel {
  name: ColourName;
  /** Share of the image's pixels, 0..1 (rounded to 3 decimals). */
  fraction: number;
}

/** Thumbnail side the colours are counted on (64² = 4096 pixels). */
export const COLOUR_SAMPLE_SIZE = 64;
/** Colours covering less of the image are not reported. */
export const COLOUR_MIN_FRACTION = 0.05;

/** Hue in degrees 0..360, saturation and value 0..1. */
export function rgbToHsv(r: number, g: number, b: number): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  return { h, s: max === 0 ? 0 : d / max, v: max / 255 };
}

/** The name of one sRGB colour (0..255 per channel). */
export function colourName(r: number, g: number, b: number): ColourName {
  const { h, s, v } = rgbToHsv(r, g, b);
  if (v < 0.2) return "black";
  // Unsaturated: a gray ramp. Darker colours need more saturation to read as a hue.
  if (s < 0.12 || (s < 0.25 && v < 0.5) || (s < 0.45 && v < 0.33)) return v >= 0.86 ? "white" : v < 0.25 ? "black" : "gray";
  // Very light, faintly tinted colours (cream, beige, lavender) read as white.
  if ((s < 0.2 && v >= 0.9) || (h >= 15 && h < 70 && s < 0.3 && v >= 0.9)) return "white";
  if (h < 15 || h >= 340) {
    if (s < 0.5 && v >= 0.7) return "pink";
    return v < 0.45 || (s < 0.5 && v < 0.7) ? "brown" : "red";
  }
  if (h < 45) return v < 0.65 || (s < 0.45 && v < 0.85) ? "brown" : "orange";
  if (h < 70) return v < 0.5 ? (h < 55 ? "brown" : "green") : s < 0.35 && h < 55 && v < 0.85 ? "brown" : "yellow";
  if (h < 165) return "green";
  if (h < 255) return "blue";
  if (h < 290) return v >= 0.75 && s < 0.45 ? "pink" : "purple";
  return v >= 0.6 && (s < 0.75 || h >= 310) ? "pink" : "purple";
}

/** Colour shares of RGB (3 channels) or RGBA (4; pixels under half opaque left out) pixels, largest first, those ≥ minFraction. */
export function colourFractions(pixels: Uint8Array, channels: 3 | 4, minFraction = COLOUR_MIN_FRACTION): ColourLabel[] {
  const counts = new Map<ColourName, number>();
  let total = 0;
  for (let i = 0; i + channels <= pixels.length; i += channels) {
    if (channels === 4 && pixels[i + 3]! < 128) continue;
    const name = colourName(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    total++;
  }
  if (total === 0) return [];
  return [...counts]
    .map(([name, n]) => ({ name, fraction: Math.round((n / total) * 1000) / 1000 }))
    .filter((c) => c.fraction >= minFraction)
    .sort((a, b) => b.fraction - a.fraction || COLOUR_NAMES.indexOf(a.name) - COLOUR_NAMES.indexOf(b.name));
}
