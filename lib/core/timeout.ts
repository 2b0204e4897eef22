/**
 * Rejects when `work` has not settled after `ms`, with `message`. The work itself goes on (its late
 * result or failure is ignored): for calls that take no AbortSignal, such as inngest.send or nodemailer.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
