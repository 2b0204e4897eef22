import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NotifiedCache } from "@/lib/db/notified-cache";
import { fakeListeners, theListener } from "@/tests/support/fake-listen";

vi.mock("@/lib/db/listen", () => import("@/tests/support/fake-listen"));

beforeEach(() => {
  fakeListeners.length = 0;
  vi.stubEnv("DATABASE_URL", "postgres://unused");
});
afterEach(() => vi.unstubAllEnvs());

function cache(options: { ttlMs?: number; maxEntries?: number; onNotification?: (payload: string) => void } = {}) {
  const c = new NotifiedCache<string | null>({
    channel: "test_channel",
    ttlMs: options.ttlMs ?? 1_000,
    maxEntries: options.maxEntries ?? 100,
    keysOf: (payload) => (payload === "all" ? "*" : payload.split(",")),
    onNotification: options.onNotification,
  });
  c.start();
  return c;
}

describe("NotifiedCache", () => {
  it("listens once on its channel and caches values, including a cached absence", () => {
    const c = cache();
    c.get("a");
    expect(fakeListeners.map((l) => [l.channel, l.reconnectMs])).toEqual([["test_channel", 1_000]]);
    c.set("a", "A", c.currentGeneration());
    c.set("b", null, c.currentGeneration());
    expect(c.get("a")).toEqual(expect.objectContaining({ value: "A" }));
    expect(c.get("b")).toEqual(expect.objectContaining({ value: null }));
    expect(c.get("c")).toBeUndefined();
  });

  it("caches nothing without a listener, and nothing while it is down", () => {
    vi.stubEnv("DATABASE_URL", "");
    const without = cache();
    without.set("a", "A", without.currentGeneration());
    expect(without.get("a")).toBeUndefined();
    expect(fakeListeners).toHaveLength(0);

    vi.stubEnv("DATABASE_URL", "postgres://unused");
    const c = cache();
    c.set("a", "A", c.currentGeneration());
    theListener().up = false;
    expect(c.get("a")).toBeUndefined();
    c.set("b", "B", c.currentGeneration());
    theListener().up = true;
    expect(c.get("a")).toBeUndefined();
    expect(c.get("b")).toBeUndefined();
  });

  it("ignores a lookup that a notification overtook", () => {
    const c = cache();
    const generation = c.currentGeneration();
    theListener().notify("unrelated");
    c.set("a", "stale", generation);
    expect(c.get("a")).toBeUndefined();
    c.set("a", "fresh", c.currentGeneration());
    expect(c.get("a")?.value).toBe("fresh");
  });

  it("forgets the keys a notification names, everything on '*' or a lost connection", () => {
    const seen: string[] = [];
    const c = cache({ onNotification: (payload) => seen.push(payload) });
    const fill = () => ["a", "b", "c"].forEach((k) => c.set(k, k.toUpperCase(), c.currentGeneration()));
    fill();
    theListener().notify("a,b");
    expect(["a", "b", "c"].map((k) => c.get(k)?.value)).toEqual([undefined, undefined, "C"]);
    fill();
    theListener().notify("all");
    expect(["a", "b", "c"].map((k) => c.get(k)?.value)).toEqual([undefined, undefined, undefined]);
    fill();
    theListener().notify("*");
    expect(["a", "b", "c"].map((k) => c.get(k)?.value)).toEqual([undefined, undefined, undefined]);
    fill();
    theListener().down();
    theListener().up = true;
    expect(["a", "b", "c"].map((k) => c.get(k)?.value)).toEqual([undefined, undefined, undefined]);
    expect(seen).toEqual(["a,b", "all", "*", "*"]);
  });

  it("expires entries after the TTL, and earlier at their own expiry", () => {
    const c = cache({ ttlMs: 1_000 });
    const now = Date.now();
    c.set("a", "A", c.currentGeneration());
    c.set("b", "B", c.currentGeneration(), now + 500);
    expect(c.get("a", now + 400)?.value).toBe("A");
    expect(c.get("b", now + 400)?.value).toBe("B");
    expect(c.get("b", now + 500)).toBeUndefined();
    expect(c.get("a", now + 900)?.value).toBe("A");
    expect(c.get("a", now + 5_000)).toBeUndefined();
    expect(c.get("a", now)).toBeUndefined(); // an expired entry is dropped, not kept
  });

  it("holds at most maxEntries, dropping the oldest", () => {
    const c = cache({ maxEntries: 2 });
    for (const k of ["a", "b", "c"]) c.set(k, k, c.currentGeneration());
    expect(["a", "b", "c"].map((k) => c.get(k)?.value)).toEqual([undefined, "b", "c"]);
  });
});
