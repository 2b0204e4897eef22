import { processSingleton } from "@/lib/core/singleton";

/**
 * Foreground work in this process (moderation analyses), so background work that needs a whole core
 * (image labelling) can yield to it: a burst of uploads is decided first, and labelled after.
 */
interface Foreground {
  running: number;
  lastEndedAt: number;
}
const state = () => processSingleton<Foreground>("foregroundWork", () => ({ running: 0, lastEndedAt: 0 }));

export async function asForeground<T>(work: () => Promise<T>): Promise<T> {
  const s = state();
  s.running++;
  try {
    return await work();
  } finally {
    s.running--;
    s.lastEndedAt = Date.now();
  }
}

/**
 * Resolves once no foreground work has run for `quietMs`, or after `maxWaitMs` at the latest (so
 * background work is delayed by a long burst, never starved by it).
 */
export async function waitForQuiet(options: { quietMs: number; maxWaitMs: number; pollMs?: number }): Promise<void> {
  const deadline = Date.now() + options.maxWaitMs;
  const poll = options.pollMs ?? 100;
  for (;;) {
    const s = state();
    const quiet = s.running === 0 && Date.now() - s.lastEndedAt >= options.quietMs;
    if (quiet || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}
