/** A periodic background task of the server (housekeeping, reconciliation). */
export interface PeriodicTask {
  label: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

/**
 * Runs `task` now and every `intervalMs` (never two at once); failures are logged. Its stop function
 * resolves once a run in progress is over (the server's shutdown closes the database after it).
 */
function every({ label, intervalMs, run: task }: PeriodicTask): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => console.error(`[sieve] ${label} failed:`, error instanceof Error ? error.message : error),
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** Starts every task; returns the function that stops them all (resolving once none runs). */
export function startPeriodicTasks(tasks: readonly PeriodicTask[]): () => Promise<void> {
  const stops = tasks.map(every);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
