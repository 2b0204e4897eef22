import { describe, expect, it } from "vitest";
import { derivedBytes, memoryCache } from "@/lib/cdn/derived-cache";

const bytes = (n: number, fill = 1) => ({ data: Buffer.alloc(n, fill), contentType: "image/webp" });

describe("derived bytes cache", () => {
  it("produces once for a burst of identical cold requests, then answers from memory", async () => {
    let produced = 0;
    const source = {
      key: "burst",
      assetId: "a1",
      produce: async () => {
        produced++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return bytes(10);
      },
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => derivedBytes(source)));
    expect(produced).toBe(1);
    expect(results.every((r) => r.data.length === 10)).toBe(true);
    await derivedBytes(source);
    expect(produced).toBe(1);
  });

  it("does not keep a failed production: the next request tries again", async () => {
    let attempts = 0;
    const source = {
      key: "flaky",
      assetId: "a2",
      produce: async () => {
        attempts++;
        if (attempts === 1) throw new Error("boom");
        return bytes(5);
      },
    };
    await expect(derivedBytes(source)).rejects.toThrow("boom");
    expect((await derivedBytes(source)).data.length).toBe(5);
    expect(attempts).toBe(2);
  });

  it("drops an asset's entries at once", async () => {
    let produced = 0;
    const source = { key: "drop-me", assetId: "a3", produce: async () => (produced++, bytes(3)) };
    await derivedBytes(source);
    memoryCache().dropAsset("a3");
    await derivedBytes(source);
    expect(produced).toBe(2);
  });

  it("stays within its byte budget, evicting the least recently used", async () => {
    const budget = 256 * 1024 * 1024; // the default CDN_MEMORY_CACHE_MB
    const entry = budget / 16;
    for (let i = 0; i < 40; i++) await derivedBytes({ key: `big-${i}`, assetId: `b${i}`, produce: async () => bytes(entry) });
    expect(memoryCache().size.bytes).toBeLessThanOrEqual(budget);
    let again = 0;
    await derivedBytes({ key: "big-39", assetId: "b39", produce: async () => (again++, bytes(entry)) });
    await derivedBytes({ key: "big-0", assetId: "b0", produce: async () => (again++, bytes(entry)) });
    expect(again).toBe(1); // the newest was still there, the oldest was evicted
    memoryCache().dropAsset("*");
  });
});
