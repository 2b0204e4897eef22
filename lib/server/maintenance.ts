/** A periodic background task of the server (housekeeping, reconciliation). */
export interface PeriodicTask {
  label: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

/** Runs `task` now and every `intervalMs` (never two at once); failures are logged. */
function every({ label, intervalMs, run: task }: PeriodicTask): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      console.error(`[sieve] ${label} failed:`, error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}

/** Starts every task; returns the function that stops them all. */
export function startPeriodicTasks(tasks: readonly PeriodicTask[]): () => void {
  const stops = tasks.map(every);
  return () => stops.forEach((stop) => stop());
}
