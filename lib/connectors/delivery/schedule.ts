/**
 * The retry schedule (Svix's by default): the first attempt at once, then `retryScheduleMs[i]` before
 * attempt i + 2. A delivery has `retryScheduleMs.length + 1` attempts; after the last failure it is
 * `failed`. `CONNECTOR_RETRY_SCHEDULE` sets it (lib/core/config.ts).
 */
export function maxAttempts(retryScheduleMs: readonly number[]): number {
  return retryScheduleMs.length + 1;
}

/** How long to wait after failed attempt `attempt` (1-based) before the next, or null when it was the last. */
export function retryDelayMs(retryScheduleMs: readonly number[], attempt: number): number | null {
  return attempt >= 1 && attempt <= retryScheduleMs.length ? (retryScheduleMs[attempt - 1] as number) : null;
}

/** Attempt outcomes that end a delivery whatever the schedule says: success, and 410 Gone. */
export function isGone(statusCode: number | null): boolean {
  return statusCode === 410;
}

/** A success is a 2xx answer (HTTP) or a message the SMTP server accepted (statusCode null, ok). */
export function isSuccessStatus(statusCode: number): boolean {
  return statusCode >= 200 && statusCode <= 299;
}
