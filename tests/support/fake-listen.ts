import type { Listener } from "@/lib/db/listen";

/**
 * A stand-in for lib/db/listen's LISTEN connection, for unit tests of the caches built on it: the
 * test says when a connection is up and delivers its notifications. Mock the module with it —
 * `vi.mock("@/lib/db/listen", () => import("@/tests/support/fake-listen"))` — and import
 * `fakeListeners` / `theListener` from here (the same module instance).
 */
export interface FakeListener {
  channel: string;
  up: boolean;
  reconnectMs?: number;
  notify: (payload: string) => void;
  /** The connection drops: `up` false, and the listener's onDown runs. */
  down: () => void;
}

/** Every listener opened since the test last emptied the list. */
export const fakeListeners: FakeListener[] = [];

export function listen(channel: string, onMessage: (payload: string) => void, options: { onDown?: () => void; reconnectMs?: number } = {}): Listener {
  const listener: FakeListener = {
    channel,
    up: true,
    reconnectMs: options.reconnectMs,
    notify: onMessage,
    down: () => {
      listener.up = false;
      options.onDown?.();
    },
  };
  fakeListeners.push(listener);
  return { listening: () => listener.up, close: async () => undefined };
}

/** The one listener the cache under test opened. */
export function theListener(): FakeListener {
  const listener = fakeListeners[0];
  if (!listener) throw new Error("no listener was opened");
  return listener;
}
