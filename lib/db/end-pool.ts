import type pg from "pg";

/** How long endPool waits for the server to close a connection it was asked to end. */
const CONNECTION_CLOSE_MS = 2_000;

/**
 * Ends a pool and resolves once its connections have closed. pg-pool's end() resolves as soon as it
 * has asked each connection to end, before the server has closed it. A database stopped in that
 * moment (the server's shutdown stops the embedded one next, and tests stop theirs) terminates the
 * session still open, and the pool reports it as an idle connection's error. The wait is bounded
 * by CONNECTION_CLOSE_MS, so a connection the server never closes does not hold the caller.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const closed = connectionsClosed(pool);
  await pool.end().catch(() => undefined);
  await closed;
}

function connectionsClosed(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  if (open === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECTION_CLOSE_MS);
    timer.unref();
    // pg-pool emits `remove` once a client's connection has ended.
    pool.on("remove", () => {
      if (--open > 0) return;
      clearTimeout(timer);
      resolve();
    });
  });
}
