import pg from "pg";

/**
 * A dedicated LISTEN connection for one channel that reconnects on failure. `listening()` says
 * whether notifications are currently being received (callers fall back to polling, or stop
 * caching, when not); `onDown` runs each time the connection is lost, since notifications sent
 * while it was down are gone. The connection never keeps a process alive on its own.
 */
export interface Listener {
  listening(): boolean;
  close(): Promise<void>;
}

export function listen(
  channel: string,
  onMessage: (payload: string) => void,
  options: { onDown?: () => void; reconnectMs?: number } = {},
): Listener {
  const reconnectMs = options.reconnectMs ?? 1000;
  let client: pg.Client | undefined;
  let active = false;
  let closed = false;
  const connect = () => {
    if (closed || !process.env.DATABASE_URL) return;
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    client = c;
    const down = () => {
      if (client !== c) return;
      active = false;
      options.onDown?.();
      client = undefined;
      c.removeAllListeners();
      // A connection that dies while it is being ended still emits "error" ("Connection terminated
      // unexpectedly"): without a listener that is an uncaught exception, which ends the process.
      c.on("error", () => undefined);
      c.end().catch(() => undefined);
      if (!closed) setTimeout(connect, reconnectMs).unref();
    };
    c.on("notification", (m) => m.channel === channel && onMessage(m.payload ?? ""));
    c.on("error", down);
    c.on("end", down);
    c.connect()
      .then(() => c.query(`LISTEN ${channel}`))
      .then(() => {
        (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        active = true;
      })
      .catch(down);
  };
  connect();
  return {
    listening: () => active,
    async close() {
      closed = true;
      active = false;
      await client?.end().catch(() => undefined);
    },
  };
}
