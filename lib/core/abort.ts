/**
 * Settles with `work`, or rejects with `aborted()` as soon as `signal` aborts. The work itself runs
 * on unseen (its late failure is ignored): for work that takes no AbortSignal, such as a sharp decode.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, aborted: () => Error): Promise<T> {
  if (!signal) return work;
  work.catch(() => {}); // an abandoned promise must not become an unhandled rejection
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
