import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLocalS3, type LocalS3 } from "@/tests/support/s3rver";
import { isApiError } from "@/lib/core/errors";
import { createS3Client } from "./s3";
import { createStorage, type Storage, type StorageConfig } from "./index";

/** One contract, run against every backend. */
interface Harness {
  storage: Storage;
  /** Every file/object the backend holds, hidden temp files included. */
  listAll(): Promise<string[]>;
  /** The fs backend's root directory (for fs-only checks of what lies on disk). */
  fsRoot?: string;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

const s3Defaults: StorageConfig["s3"] = {
  bucket: undefined,
  region: "us-east-1",
  endpoint: undefined,
  accessKeyId: undefined,
  secretAccessKey: undefined,
  forcePathStyle: true,
  prefix: "",
};

const backends: { name: string; start: () => Promise<Harness> }[] = [
  {
    name: "fs",
    async start() {
      const root = await mkdtemp(path.join(tmpdir(), "sieve-fs-storage-"));
      const listAll = async () => {
        const entries = await readdir(root, { recursive: true, withFileTypes: true });
        return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
      };
      return {
        storage: createStorage({ driver: "fs", fsRoot: root, s3: s3Defaults }),
        listAll,
        fsRoot: root,
        reset: async () => {
          for (const entry of await readdir(root)) await rm(path.join(root, entry), { recursive: true, force: true });
        },
        stop: () => rm(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "s3",
    async start() {
      const server: LocalS3 = await startLocalS3();
      const cfg: StorageConfig["s3"] = {
        ...s3Defaults,
        bucket: server.bucket,
        endpoint: server.endpoint,
        accessKeyId: server.accessKeyId,
        secretAccessKey: server.secretAccessKey,
        prefix: "tenant", // exercises key prefixing
      };
      const client: S3Client = createS3Client(cfg);
      const listAll = async () => {
        const res = await client.send(new ListObjectsV2Command({ Bucket: server.bucket }));
        return (res.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      };
      const storage = createStorage({ driver: "s3", fsRoot: "", s3: cfg });
      return {
        storage,
        listAll,
        reset: async () => {
          await storage.deletePrefix("t"); // all test keys start with "t"
          expect(await listAll()).toEqual([]);
        },
        stop: async () => {
          client.destroy();
          await server.stop();
        },
      };
    },
  },
];

const MiB = 1024 * 1024;

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");

/** Deterministic pseudo-random bytes, so hashes cover real content rather than zeros. */
function bytes(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Streams `data` in 64 KiB chunks; optionally fails after `failAfter` bytes. */
function streamOf(data: Buffer, failAfter?: number): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < data.length; offset += 64 * 1024) {
      if (failAfter !== undefined && offset >= failAfter) throw new Error("source broke");
      await new Promise((resolve) => setImmediate(resolve)); // behave like a real, async source
      yield data.subarray(offset, offset + 64 * 1024);
    }
    if (failAfter !== undefined) throw new Error("source broke");
  }
  return Readable.from(chunks());
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const expectHashes = (result: { sizeInBytes: number; sha256: string; md5: string }, data: Buffer) =>
  expect(result).toEqual({ sizeInBytes: data.length, sha256: sha256(data), md5: md5(data) });

describe.each(backends)("storage contract: $name", { timeout: 60_000 }, ({ name, start }) => {
  let h: Harness;
  let storage: Storage;

  beforeAll(async () => {
    h = await start();
    storage = h.storage;
  });
  afterAll(() => h?.stop());
  beforeEach(() => h.reset());

  /** The content type get/head must report: what put stored, or none where the backend keeps none (fs). */
  const storedType = (type: string) => (storage.keepsContentType ? type : undefined);

  async function getBytes(key: string, range?: { start: number; end?: number }) {
    const object = await storage.get(key, range ? { range } : undefined);
    if (!object) return null;
    return { ...object, data: await readAll(object.body) };
  }

  async function expectTooLarge(promise: Promise<unknown>) {
    const error: unknown = await promise.then(
      () => expect.unreachable("put should have failed"),
      (e: unknown) => e,
    );
    expect(isApiError(error) && error.code).toBe("upload/too-large");
  }

  it("round-trips a Buffer with size, hashes, content type and etag", async () => {
    const data = bytes(1000);
    expectHashes(await storage.put("t/a/one.bin", data, { contentType: "image/png" }), data);

    const object = await getBytes("t/a/one.bin");
    expect(object?.data.equals(data)).toBe(true);
    expect(object?.sizeInBytes).toBe(1000);
    expect(object?.contentType).toBe(storedType("image/png"));
    expect(object?.etag).toMatch(/^".+"$/);
    expect(object?.range).toBeUndefined();

    expect(await storage.head("t/a/one.bin")).toStrictEqual({
      sizeInBytes: 1000,
      ...(storage.keepsContentType && { contentType: "image/png" }),
      etag: object?.etag,
    });
  });

  it("stores copies that need not be durable (durable: false) like any other, buffer or stream", async () => {
    const data = bytes(3000);
    expectHashes(await storage.put("t/a/cache.webp", data, { durable: false }), data);
    expect((await getBytes("t/a/cache.webp"))?.data.equals(data)).toBe(true);
    expectHashes(await storage.put("t/a/cache2.webp", Readable.from([data.subarray(0, 1000), data.subarray(1000)]), { durable: false }), data);
    expect((await getBytes("t/a/cache2.webp"))?.data.equals(data)).toBe(true);
  });

  it("accepts a plain Uint8Array and an empty body, defaulting the content type", async () => {
    const data = bytes(300);
    const view = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    expectHashes(await storage.put("t/u8", view), data);
    expect((await getBytes("t/u8"))?.data.equals(data)).toBe(true);

    expectHashes(await storage.put("t/empty", Buffer.alloc(0)), Buffer.alloc(0));
    const empty = await storage.head("t/empty");
    expect(empty?.sizeInBytes).toBe(0);
    expect(empty?.contentType).toBe(storedType("application/octet-stream"));
    expect((await getBytes("t/empty"))?.data.length).toBe(0);
  });

  it("streams a multi-MB body (multipart on S3) with correct hashes", async () => {
    const data = bytes(12 * MiB + 123, 7);
    expectHashes(await storage.put("t/big.bin", streamOf(data), { contentType: "video/mp4" }), data);
    const object = await getBytes("t/big.bin");
    expect(object?.sizeInBytes).toBe(data.length);
    expect(object && sha256(object.data)).toBe(sha256(data));
  });

  it("overwrites atomically: new content, content type and etag", async () => {
    await storage.put("t/over", bytes(10, 1), { contentType: "text/plain" });
    const before = await storage.head("t/over");
    await storage.put("t/over", bytes(20, 2), { contentType: "image/gif" });
    const after = await getBytes("t/over");
    expect(after?.data.equals(bytes(20, 2))).toBe(true);
    expect(after?.contentType).toBe(storedType("image/gif"));
    expect(after?.etag).not.toBe(before?.etag);
  });

  it("accepts content of exactly maxBytes", async () => {
    const data = bytes(1000);
    expectHashes(await storage.put("t/exact", data, { maxBytes: 1000 }), data);
  });

  it("rejects a Buffer over maxBytes with upload/too-large and stores nothing", async () => {
    await expectTooLarge(storage.put("t/big", bytes(1001), { maxBytes: 1000 }));
    expect(await storage.head("t/big")).toBeNull();
    expect(await h.listAll()).toEqual([]);
  });

  it("cuts off a multi-MB stream over maxBytes mid-way and stores nothing", async () => {
    await expectTooLarge(storage.put("t/big", streamOf(bytes(14 * MiB)), { maxBytes: 11 * MiB }));
    expect(await storage.head("t/big")).toBeNull();
    expect(await h.listAll()).toEqual([]);
  });

  it("keeps the previous object when an overwrite fails", async () => {
    await storage.put("t/keep", bytes(10), { contentType: "text/plain" });
    await expectTooLarge(storage.put("t/keep", bytes(100), { maxBytes: 50 }));
    const object = await getBytes("t/keep");
    expect(object?.data.equals(bytes(10))).toBe(true);
    expect(object?.contentType).toBe(storedType("text/plain"));
  });

  it.each([
    ["early", 3 * 64 * 1024],
    ["after several MB (multipart on S3)", 11 * MiB],
  ])("propagates a source error (%s) and stores nothing", async (_label, failAfter) => {
    await expect(storage.put("t/broken", streamOf(bytes(14 * MiB), failAfter))).rejects.toThrow("source broke");
    expect(await storage.head("t/broken")).toBeNull();
    expect(await h.listAll()).toEqual([]);
  });

  it("returns null for absent objects", async () => {
    expect(await storage.get("t/missing")).toBeNull();
    expect(await storage.head("t/missing")).toBeNull();
    expect(await storage.get("t/missing", { range: { start: 0 } })).toBeNull();
    // A "directory" made by other keys is not an object either.
    await storage.put("t/dir/child", bytes(1));
    expect(await storage.head("t/dir")).toBeNull();
  });

  it("reads byte ranges, reporting the total size and the served range", async () => {
    const data = bytes(100);
    await storage.put("t/r", data, { contentType: "audio/mpeg" });

    const middle = await getBytes("t/r", { start: 10, end: 19 });
    expect(middle?.data.equals(data.subarray(10, 20))).toBe(true);
    expect(middle).toMatchObject({ sizeInBytes: 100, range: { start: 10, end: 19 } });
    expect(middle?.contentType).toBe(storedType("audio/mpeg"));

    const tail = await getBytes("t/r", { start: 90 });
    expect(tail?.data.equals(data.subarray(90))).toBe(true);
    expect(tail?.range).toEqual({ start: 90, end: 99 });

    const clamped = await getBytes("t/r", { start: 95, end: 1000 });
    expect(clamped?.data.equals(data.subarray(95))).toBe(true);
    expect(clamped?.range).toEqual({ start: 95, end: 99 });

    const last = await getBytes("t/r", { start: 99, end: 99 });
    expect(last?.data.equals(data.subarray(99))).toBe(true);

    await expect(storage.get("t/r", { range: { start: 100 } })).rejects.toThrow(RangeError);
    await expect(storage.get("t/r", { range: { start: 5, end: 4 } })).rejects.toThrow(RangeError);
    await expect(storage.get("t/r", { range: { start: -1 } })).rejects.toThrow(RangeError);
  });

  it("deletes idempotently", async () => {
    await storage.put("t/d/x", bytes(5));
    await storage.delete("t/d/x");
    expect(await storage.head("t/d/x")).toBeNull();
    await storage.delete("t/d/x");
    await storage.delete("t/never/existed");
    expect(await h.listAll()).toEqual([]);
  });

  it("deletes by prefix with plain string-prefix semantics and counts", async () => {
    const keys = ["t/p/1", "t/p/sub/2", "t/p/sub/deep/3", "t/px/4", "t/q/a1", "t/q/ab/c", "t/q/b"];
    for (const key of keys) await storage.put(key, bytes(3), { contentType: "text/plain" });

    expect(await storage.deletePrefix("t/p/")).toBe(3);
    expect(await storage.head("t/px/4")).not.toBeNull();

    expect(await storage.deletePrefix("t/q/a")).toBe(2);
    expect(await storage.head("t/q/b")).not.toBeNull();

    expect(await storage.deletePrefix("t/nothing/")).toBe(0);
    expect(await h.listAll()).toHaveLength(2);
    await expect(storage.deletePrefix("")).rejects.toThrow();
  });

  it("deletes more than 1000 objects by prefix (DeleteObjects batches on S3)", async () => {
    const keys = Array.from({ length: 1003 }, (_, i) => `t/many/${String(i).padStart(4, "0")}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((key) => storage.put(key, bytes(1))));
    }
    expect(await storage.deletePrefix("t/many/")).toBe(1003);
    expect(await h.listAll()).toEqual([]);
  });

  it("concatenates parts in order with the right hashes", async () => {
    const parts = [bytes(5 * MiB, 1), bytes(5 * MiB, 2), bytes(1234, 3)];
    await Promise.all(parts.map((part, i) => storage.put(`t/parts/${i + 1}`, part)));
    const whole = Buffer.concat(parts);

    const result = await storage.concat("t/whole", ["t/parts/1", "t/parts/2", "t/parts/3"], {
      contentType: "video/webm",
    });
    expectHashes(result, whole);
    const object = await getBytes("t/whole");
    expect(object && sha256(object.data)).toBe(sha256(whole));
    expect(object?.contentType).toBe(storedType("video/webm"));
  });

  it("fails concat on a missing source or the size cap and stores nothing", async () => {
    await storage.put("t/parts/1", bytes(100));
    await expect(storage.concat("t/whole", ["t/parts/1", "t/parts/2"])).rejects.toThrow(/does not exist/);
    await expectTooLarge(storage.concat("t/whole", ["t/parts/1", "t/parts/1"], { maxBytes: 150 }));
    expect(await storage.head("t/whole")).toBeNull();
  });

  describe.runIf(name === "fs")("fs on disk", () => {
    /** Every file and directory below the root, relative and sorted. */
    const tree = async () => (await readdir(h.fsRoot as string, { recursive: true })).sort();

    it("a put leaves exactly the object file in its directory, a failed put nothing", async () => {
      await storage.put("t/solo/obj", bytes(27), { contentType: "text/plain" });
      const onePut = ["t", path.join("t", "solo"), path.join("t", "solo", "obj")];
      expect(await tree()).toEqual(onePut); // no sidecar, no temp file

      await storage.put("t/solo/obj", streamOf(bytes(200_000, 2)), { contentType: "image/png" });
      expect(await tree()).toEqual(onePut);

      // Failed overwrites: the old object stays, nothing else appears.
      await expectTooLarge(storage.put("t/solo/obj", bytes(10), { maxBytes: 5 }));
      await expectTooLarge(storage.put("t/solo/obj", streamOf(bytes(200_000)), { maxBytes: 100_000 }));
      await expect(storage.put("t/solo/obj", streamOf(bytes(200_000), 64 * 1024))).rejects.toThrow("source broke");
      await expect(storage.put("t/solo", bytes(5))).rejects.toThrow(); // the key is a directory: rename fails
      expect(await tree()).toEqual(onePut);
      expect((await getBytes("t/solo/obj"))?.data.equals(bytes(200_000, 2))).toBe(true);

      // Failed puts at fresh keys leave no file and no directory behind.
      await expectTooLarge(storage.put("t/fresh/a/x", bytes(10), { maxBytes: 5 }));
      await expectTooLarge(storage.put("t/fresh/b/x", streamOf(bytes(200_000)), { maxBytes: 100_000 }));
      await expect(storage.put("t/fresh/c/x", streamOf(bytes(200_000), 64 * 1024))).rejects.toThrow("source broke");
      await expect(storage.concat("t/fresh/d/x", ["t/solo/obj", "t/missing"])).rejects.toThrow(/does not exist/);
      expect(await tree()).toEqual(onePut);
    });

    it("deletePrefix also removes stale hidden temp files", async () => {
      await storage.put("t/stale/sub/obj", bytes(3));
      await mkdir(path.join(h.fsRoot as string, "t", "stale", "sub", "deeper"), { recursive: true });
      await writeFile(path.join(h.fsRoot as string, "t", "stale", "sub", ".obj.0123456789ab.tmp"), "partial");
      await writeFile(path.join(h.fsRoot as string, "t", "stale", "sub", "deeper", ".x.ba9876543210.tmp"), "partial");
      expect(await storage.deletePrefix("t/stale/")).toBe(1);
      expect(await tree()).toEqual([]);
    });
  });

  it.each(["", "/abs", "a//b", "a/", "../up", "a/../b", "a/./b", ".hidden", "a\\b", "a\0b", "a/\nb"])(
    "rejects the invalid key %j",
    async (key) => {
      await expect(storage.put(key, bytes(1))).rejects.toThrow(/Invalid storage key/);
      await expect(storage.get(key)).rejects.toThrow(/Invalid storage key/);
      await expect(storage.head(key)).rejects.toThrow(/Invalid storage key/);
      await expect(storage.delete(key)).rejects.toThrow(/Invalid storage key/);
    },
  );
});
