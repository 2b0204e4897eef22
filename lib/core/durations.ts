/** Duration strings as Inngest writes them ("500ms", "30s", "1h30m", "2d", "1w"): config and the executor read them. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;

/** Milliseconds of a duration string, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const source = text.trim();
  if (!source) return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < source.length) {
    const start = PART.lastIndex;
    const m = PART.exec(source);
    if (!m || m.index !== start) return undefined;
    total += Number(m[1]) * UNITS[m[2]!]!;
  }
  return total;
}
