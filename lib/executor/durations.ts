/** Sleep op names: Inngest duration strings (lib/core/durations.ts) and sleepUntil dates. */
import { parseDuration } from "@/lib/core/durations";

export { parseDuration };

/** When a Sleep op ends: its name is a duration ("2s") or, for sleepUntil, an ISO date. */
export function wakeTime(name: string, now = Date.now()): number | undefined {
  const duration = parseDuration(name);
  if (duration !== undefined) return now + duration;
  const date = Date.parse(name);
  return Number.isNaN(date) ? undefined : date;
}
