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
 * Resolves true once no foreground work has run for `quietMs`, or false after `maxWaitMs` at the
 * latest (the caller decides whether background work goes ahead anyway, or waits again later).
 */
export async function waitForQuiet(options: { quietMs: number; maxWaitMs: number; pollMs?: number }): Promise<boolean> {
  const deadline = Date.now() + options.maxWaitMs;
  const poll = options.pollMs ?? 100;
  for (;;) {
    const s = state();
    const quiet = s.running === 0 && Date.now() - s.lastEndedAt >= options.quietMs;
    if (quiet) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}
