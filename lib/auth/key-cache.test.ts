import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keyCache } from "@/lib/auth/key-cache";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { forgetSingleton } from "@/lib/core/singleton";
import { fakeListeners, theListener } from "@/tests/support/fake-listen";

vi.mock("@/lib/db/listen", () => import("@/tests/support/fake-listen"));

const key = (id: string): AuthenticatedKey => ({ id, projectId: "p", permissions: [], rateLimitPerSecond: null, ownerUserId: "u", label: "key" });

beforeEach(() => {
  fakeListeners.length = 0;
  forgetSingleton("keyCache");
  vi.stubEnv("DATABASE_URL", "postgres://unused");
});
afterEach(() => {
  forgetSingleton("keyCache");
  vi.unstubAllEnvs();
});

/** The process's key cache with its listener running, and some keys cached. */
function started(...hashes: string[]) {
  const cache = keyCache();
  cache.get("warm-up");
  for (const hash of hashes) cache.set(hash, key(hash), null, cache.currentGeneration());
  return cache;
}

describe("API key cache", () => {
  it("is one per process, listening on sieve_api_keys with a 1 s reconnect", () => {
    expect(keyCache()).toBe(keyCache());
    keyCache().get("h");
    keyCache().get("h");
    expect(fakeListeners.map((l) => [l.channel, l.reconnectMs])).toEqual([["sieve_api_keys", 1_000]]);
  });

  it("returns a cached key, and nothing while the listener is down", () => {
    const cache = started("h1");
    expect(cache.get("h1")).toEqual(key("h1"));
    theListener().up = false;
    expect(cache.get("h1")).toBeUndefined();
    cache.set("h2", key("h2"), null, cache.currentGeneration());
    theListener().up = true;
    expect(cache.get("h2")).toBeUndefined();
  });

  it("forgets the key whose hash is notified, all keys on '*', an empty payload or a lost connection", () => {
    let cache = started("h1", "h2");
    theListener().notify("h1");
    expect([cache.get("h1"), cache.get("h2")]).toEqual([undefined, key("h2")]);
    for (const drop of [() => theListener().notify("*"), () => theListener().notify(""), () => theListener().down()]) {
      theListener().up = true;
      cache = started("h1", "h2");
      drop();
      theListener().up = true;
      expect([cache.get("h1"), cache.get("h2")]).toEqual([undefined, undefined]);
    }
  });

  it("forgets a key revoked in this process at once, before any notification, and drops lookups in flight", () => {
    const cache = started("h1", "h2");
    const generation = cache.currentGeneration();
    cache.forget("h1");
    expect([cache.get("h1"), cache.get("h2")]).toEqual([undefined, key("h2")]);
    cache.set("h1", key("h1"), null, generation);
    expect(cache.get("h1")).toBeUndefined();
  });

  it("does not cache a lookup that a notification overtook", () => {
    const cache = started();
    const generation = cache.currentGeneration();
    theListener().notify("other-hash");
    cache.set("h1", key("h1"), null, generation);
    expect(cache.get("h1")).toBeUndefined();
  });

  it("drops entries after 30 s, and a key at its own expiry", () => {
    const cache = started("h1");
    const now = Date.now();
    cache.set("h2", key("h2"), new Date(now + 10_000), cache.currentGeneration());
    expect(cache.get("h2", now + 9_999)).toEqual(key("h2"));
    expect(cache.get("h2", now + 10_000)).toBeUndefined();
    expect(cache.get("h1", now + 29_000)).toEqual(key("h1"));
    expect(cache.get("h1", now + 31_000)).toBeUndefined();
  });

  it("holds at most 10 000 keys, dropping the oldest", () => {
    const hashes = Array.from({ length: 10_001 }, (_, i) => `h${i}`);
    const cache = started(...hashes);
    expect(cache.get("h0")).toBeUndefined();
    expect(cache.get("h1")).toEqual(key("h1"));
    expect(cache.get("h10000")).toEqual(key("h10000"));
  });
});
