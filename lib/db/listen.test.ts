import type { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

/** pg's Client as far as listen() uses it: a connection that is refused. */
const clients = vi.hoisted(() => [] as EventEmitter[]);
vi.mock("pg", async () => {
  const { EventEmitter } = await import("node:events");
  class FakeClient extends EventEmitter {
    constructor() {
      super();
      clients.push(this);
    }
    connect() {
      return Promise.reject(new Error("connection refused"));
    }
    query() {
      return Promise.resolve();
    }
    end() {
      return Promise.resolve();
    }
  }
  return { default: { Client: FakeClient } };
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("listen", () => {
  it("a lost connection that reports an error while it is ended does not throw (an uncaught error would end the process)", async () => {
    vi.stubEnv("DATABASE_URL", "postgres://127.0.0.1:1/none");
    const { listen } = await import("./listen");
    const downs: number[] = [];
    const listener = listen("channel", () => undefined, { onDown: () => downs.push(Date.now()), reconnectMs: 60_000 });
    await vi.waitFor(() => expect(downs).toHaveLength(1));
    expect(listener.listening()).toBe(false);
    // pg emits "Connection terminated unexpectedly" when the socket of a client being ended closes.
    expect(() => clients[0]!.emit("error", new Error("Connection terminated unexpectedly"))).not.toThrow();
    await listener.close();
  });
});
