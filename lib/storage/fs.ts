import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink } from "node:fs/promises";
import type { Stats } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { HashingMeter, hashBuffer, readSequentially, toReadable } from "./hashing";
import {
  assertValidKey,
  assertValidPrefix,
  assertValidRange,
  type GetOptions,
  type GetResult,
  type ObjectInfo,
  type PutBody,
  type PutOptions,
  type PutResult,
  type Storage,
} from "./types";

const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Objects as plain files below `root` (key "a/b/c" → `<root>/a/b/c`), so the data dir stays
 * inspectable with ordinary tools.
 *
 * Only the bytes are kept: no content type (`keepsContentType` is false; the database records
 * every object's type). Writes go through hidden `.<name>.<random>.tmp` files; keys cannot have
 * segments starting with "." (see assertValidKey), so these never collide with an object.
 */
export class FsStorage implements Storage {
  readonly keepsContentType = false;
  readonly #root: string;

  constructor(root: string) {
    this.#root = path.resolve(root);
  }

  async put(key: string, body: PutBody, opts: PutOptions = {}): Promise<PutResult> {
    // Bytes already in memory (most uploads) skip the stream machinery: hashed in memory, written
    // with one call. Either way: temp file, then one rename into place.
    const inMemory = body instanceof Readable ? null : Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const source = inMemory ? null : toReadable(body);
    const durable = opts.durable !== false;
    let file: string | undefined;
    let tempPath: string | undefined; // what a failure must remove again
    try {
      file = this.#file(key);
      let result: PutResult;
      const created = await createTemp(file, (temp) => open(temp, "wx"));
      tempPath = created.tempPath;
      const handle = created.value;
      // Durable before it is visible (fsync, then rename, then fsync of the directory): the
      // database points at this object as soon as put returns. Unless told it need not be.
      if (inMemory) {
        try {
          result = hashBuffer(inMemory, opts.maxBytes);
          await handle.writeFile(inMemory);
          if (durable) await handle.sync();
        } finally {
          await handle.close();
        }
      } else {
        const meter = new HashingMeter(opts.maxBytes);
        // The stream fsyncs (flush) and closes the handle when it finishes or fails.
        await pipeline(source as Readable, meter, handle.createWriteStream({ flush: durable }));
        result = meter.result();
      }
      await rename(tempPath, file);
      if (durable) await syncDirectory(path.dirname(file));
      return result;
    } catch (error) {
      source?.destroy(); // a producer we never read from must not hang
      if (tempPath) await rm(tempPath, { force: true });
      // Directories created for this put go again (a non-empty one, e.g. a concurrent put's, stays).
      if (file) await this.#pruneEmptyDirs(path.dirname(file));
      throw error;
    }
  }

  async get(key: string, opts: GetOptions = {}): Promise<GetResult | null> {
    const file = this.#file(key);
    const { range } = opts;
    if (range) assertValidRange(range);

    const handle = await ifExists(open(file, "r"));
    if (!handle) return null;
    try {
      // Size and etag come from the open descriptor, so they describe exactly the bytes we stream
      // even if the key is replaced meanwhile (a rename swaps the path, not our open file).
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      const info = infoOf(stats);
      // 256 KiB reads: a few large reads per file rather than one per 64 KiB (streams and whole reads alike).
      if (!range) return { ...info, body: handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES }) };

      if (range.start >= stats.size) {
        throw new RangeError(`Range start ${range.start} is beyond the object's ${stats.size} bytes`);
      }
      const end = Math.min(range.end ?? Number.POSITIVE_INFINITY, stats.size - 1);
      return { ...info, range: { start: range.start, end }, body: handle.createReadStream({ start: range.start, end, highWaterMark: READ_CHUNK_BYTES }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const file = this.#file(key);
    const stats = await ifExists(stat(file));
    if (!stats?.isFile()) return null;
    return infoOf(stats);
  }

  async delete(key: string): Promise<void> {
    const file = this.#file(key);
    await ifExists(unlink(file));
    await this.#pruneEmptyDirs(path.dirname(file));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidPrefix(prefix);
    // "a/b/c" → look in <root>/a/b for entries starting with "c"; "a/b/" → everything in <root>/a/b.
    const slash = prefix.lastIndexOf("/");
    const dir = slash === -1 ? this.#root : path.join(this.#root, ...prefix.slice(0, slash).split("/"));
    const fragment = prefix.slice(slash + 1);

    const entries = (await ifExists(readdir(dir, { withFileTypes: true }))) ?? [];
    let removed = 0;
    for (const entry of entries) {
      if (entry.name.startsWith(".") || !entry.name.startsWith(fragment)) continue;
      const entryPath = path.join(dir, entry.name);
      removed += entry.isDirectory() ? await removeTree(entryPath) : Number((await ifExists(unlink(entryPath))) !== null);
    }
    await this.#pruneEmptyDirs(dir);
    return removed;
  }

  async concat(targetKey: string, sourceKeys: readonly string[], opts?: PutOptions): Promise<PutResult> {
    sourceKeys.forEach(assertValidKey);
    return this.put(targetKey, readSequentially(this, sourceKeys), opts);
  }

  #file(key: string): string {
    assertValidKey(key);
    const file = path.join(this.#root, ...key.split("/"));
    // Defence in depth: assertValidKey already rules out anything that could escape the root.
    if (!file.startsWith(this.#root + path.sep)) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
    return file;
  }

  /** Removes now-empty directories from `dir` up to (not including) the root. */
  async #pruneEmptyDirs(dir: string): Promise<void> {
    for (let current = dir; current.startsWith(this.#root + path.sep); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or already gone): stop climbing
      }
    }
  }
}

const tempPathFor = (file: string) =>
  path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);

/**
 * Creates a temp file for `file` in the same directory (so the final rename is atomic): `create`
 * must create the given path exclusively ("wx"). Retries when a concurrent delete prunes the
 * freshly created, still empty directory; once the temp file exists the directory is no longer
 * empty and stays. If `create` fails after creating the file (e.g. a failed write), the partial
 * temp file is removed again.
 */
async function createTemp<T>(file: string, create: (tempPath: string) => Promise<T>): Promise<{ tempPath: string; value: T }> {
  const dir = path.dirname(file);
  for (let attempt = 1; ; attempt++) {
    // Folders this process made or saw are not made again; one deleted meanwhile shows as ENOENT below.
    if (attempt > 1 || !knownDirectories.has(dir)) {
      await mkdir(dir, { recursive: true });
      rememberDirectory(dir);
    }
    const tempPath = tempPathFor(file);
    try {
      return { tempPath, value: await create(tempPath) };
    } catch (error) {
      const code = errorCode(error);
      // ENOENT (directory gone) and EEXIST mean the exclusive create itself failed: nothing of ours
      // exists at tempPath (and an existing file there is not ours to remove).
      if (code !== "ENOENT" && code !== "EEXIST") await rm(tempPath, { force: true });
      if (code !== "ENOENT" || attempt >= 3) throw error;
      knownDirectories.delete(dir);
    }
  }
}

const knownDirectories = new Set<string>();

function rememberDirectory(dir: string) {
  if (knownDirectories.size >= 10_000) knownDirectories.clear();
  knownDirectories.add(dir);
}

/** Size and etag; content types are not kept by this backend. */
const infoOf = (stats: Stats): ObjectInfo => ({ sizeInBytes: stats.size, etag: etagOf(stats) });

/** Inode, size and mtime: every put renames a new inode into place, so this changes with content. */
const etagOf = (stats: Stats) =>
  `"${[stats.ino, stats.size, Math.trunc(stats.mtimeMs)].map((n) => n.toString(36)).join("-")}"`;

/** Removes a directory tree (stale hidden temp files included), counting objects. */
async function removeTree(dir: string): Promise<number> {
  let removed = 0;
  for (const entry of (await ifExists(readdir(dir, { withFileTypes: true }))) ?? []) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) removed += await removeTree(entryPath);
    else if (entry.name.startsWith(".")) await rm(entryPath, { force: true });
    else if ((await ifExists(unlink(entryPath))) !== null) removed++;
  }
  await rmdir(dir).catch(() => undefined); // a concurrent put may have recreated something
  return removed;
}

/** Resolves to null instead of rejecting when the path (or a parent of it) does not exist. */
async function ifExists<T>(operation: Promise<T>): Promise<T | null> {
  try {
    return await operation;
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/** Makes a rename in `dir` durable (the directory entry itself is data too). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
