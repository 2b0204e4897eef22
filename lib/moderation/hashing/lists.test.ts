import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/database";

// A real PostgreSQL (embedded, in a throw-away DATA_DIR) with the migrations applied.
let dataDir: string;
let database: Database | undefined;
let lists: typeof import("./lists");

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "sieve-hashlists-"));
  await chmod(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must enter it
  process.env.DATA_DIR = dataDir;
  delete process.env.DATABASE_URL;
  const { ensureDatabase } = await import("@/lib/db/database");
  database = await ensureDatabase();
  lists = await import("./lists");
});

afterAll(async () => {
  await database?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const BASE = "f0e1d2c3b4a59687";
/** BASE with the lowest `bits` bits flipped. */
function flip(hash: string, bits: number): string {
  const mask = (1n << BigInt(bits)) - 1n;
  return (BigInt(`0x${hash}`) ^ mask).toString(16).padStart(16, "0");
}

describe("hash lists", () => {
  it("creates lists and refuses duplicate names", async () => {
    const list = await lists.createHashList({ name: "known-bad", description: "test list" });
    expect(list).toMatchObject({ name: "known-bad", description: "test list", action: "hold", entries: 0 });
    await expect(lists.createHashList({ name: "known-bad" })).rejects.toThrow(/already exists/);
    await lists.createHashList({ name: "other" });
    const all = await lists.listHashLists();
    expect(all.map((l) => l.name)).toEqual(["known-bad", "other"]);
  });

  it("adds hashes idempotently, normalising case", async () => {
    const first = await lists.addHashes("known-bad", [BASE, flip(BASE, 5)], { label: "case-1" });
    expect(first).toEqual({ list: "known-bad", added: 2, skipped: 0 });
    const again = await lists.addHashes("known-bad", [BASE.toUpperCase(), flip(BASE, 5)]);
    expect(again).toEqual({ list: "known-bad", added: 0, skipped: 2 });
    await lists.addHashes("other", [BASE]);
    const counts = Object.fromEntries((await lists.listHashLists()).map((l) => [l.name, l.entries]));
    expect(counts).toEqual({ "known-bad": 2, other: 1 });
  });

  it("refuses invalid hashes without writing anything", async () => {
    await expect(lists.addHashes("known-bad", ["0123456789abcdef", "xyz"])).rejects.toThrow(/16 hex/);
    await expect(lists.addHashes("known-bad", ["0123456789abcde"])).rejects.toThrow(/16 hex/);
    await expect(lists.addHashes("known-bad", [])).rejects.toThrow(/No hashes/);
    await expect(lists.addHashes("missing", [BASE])).rejects.toThrow(/not found/);
    expect(await lists.findMatches("0123456789abcdef", 0)).toEqual([]);
    await expect(lists.findMatches("nope")).rejects.toThrow(/16 hex/);
    await expect(lists.findMatches(BASE, 65)).rejects.toThrow(/maxDistance/);
  });

  it("finds exact matches in every list", async () => {
    const matches = await lists.findMatches(BASE, 0);
    expect(matches.map((m) => [m.list.name, m.distance, m.hash])).toEqual([
      ["known-bad", 0, BASE],
      ["other", 0, BASE],
    ]);
    expect(matches[0]).toMatchObject({ label: "case-1", list: { action: "hold" } });
  });

  it("finds near matches within the distance, closest first", async () => {
    const query = flip(BASE, 3); // 3 bits from BASE, 2 bits from flip(BASE, 5)
    const matches = await lists.findMatches(query);
    expect(matches.map((m) => [m.list.name, m.hash, m.distance])).toEqual([
      ["known-bad", flip(BASE, 5), 2],
      ["known-bad", BASE, 3],
      ["other", BASE, 3],
    ]);
    expect((await lists.findMatches(query, 2)).map((m) => m.hash)).toEqual([flip(BASE, 5)]);
    // Exact matches come first, then near ones.
    expect((await lists.findMatches(BASE)).map((m) => m.distance)).toEqual([0, 0, 5]);
  });

  it("finds nothing beyond the distance", async () => {
    expect(await lists.findMatches(flip(BASE, 14))).toEqual([]); // 9 bits from the nearest entry
    expect(await lists.findMatches(flip(BASE, 64), 32)).toEqual([]); // the complement: 59+ bits away
  });

  it("finds the hold match of an image's hashes in one statement, the first hash first, hold lists only", async () => {
    const reportOnly = flip(BASE, 62); // far from BASE; only in a list without the hold action
    await lists.addHashes("other", [reportOnly]);
    const { sqlPool } = await import("@/lib/db/client");
    await sqlPool().query("UPDATE hash_lists SET action = 'report' WHERE name = 'other'");

    // The first hash matches at distance 3, the second exactly: the first hash wins.
    const both = await lists.findHoldMatch([flip(BASE, 3), BASE]);
    expect(both).toMatchObject({ matchedHash: flip(BASE, 3), hash: flip(BASE, 5), distance: 2, list: { name: "known-bad", action: "hold" } });
    // Only the second matches.
    expect(await lists.findHoldMatch([flip(BASE, 40), BASE])).toMatchObject({ matchedHash: BASE, distance: 0, label: "case-1" });
    expect(await lists.findHoldMatch([flip(BASE, 40), flip(BASE, 14)])).toBeNull();
    expect(await lists.findHoldMatch([])).toBeNull();
    await expect(lists.findHoldMatch(["nope"])).rejects.toThrow(/16 hex/);
    // An entry of a list whose action is not hold never holds.
    expect(await lists.findHoldMatch([reportOnly])).toBeNull();
    expect((await lists.findMatches(reportOnly, 0)).map((m) => m.list.action)).toEqual(["report"]);
    await sqlPool().query("UPDATE hash_lists SET action = 'hold' WHERE name = 'other'");
  });

  it("removes hashes", async () => {
    expect(await lists.removeHash("other", BASE.toUpperCase())).toEqual({ list: "other", hash: BASE, removed: true });
    expect(await lists.removeHash("other", BASE)).toEqual({ list: "other", hash: BASE, removed: false });
    expect((await lists.findMatches(BASE, 0)).map((m) => m.list.name)).toEqual(["known-bad"]);
  });
});
