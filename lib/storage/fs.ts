import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { HashingMeter, readSequentially, toReadable } from "./hashing";
import {
  DEFAULT_CONTENT_TYPE,
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

/**
 * Objects as plain files below `root` (key "a/b/c" → `<root>/a/b/c`), so the data dir stays
 * inspectable with ordinary tools.
 *
 * Next to each object sits a hidden sidecar `.<name>.meta.json` holding its content type, and
 * writes go through hidden `.<name>.<random>.tmp` files. Keys cannot have segments starting with
 * "." (see assertValidKey), so neither can ever collide with an object.
 */
export class FsStorage implements Storage {
  readonly #root: string;

  constructor(root: string) {
    this.#root = path.resolve(root);
  }

  async put(key: string, body: PutBody, opts: PutOptions = {}): Promise<PutResult> {
    const source = toReadable(body);
    const meter = new HashingMeter(opts.maxBytes);
    const cleanup: string[] = []; // what a failure must remove again
    try {
      const file = this.#file(key);
      const { handle, tempPath } = await openTemp(file);
      cleanup.push(tempPath);
      await pipeline(source, meter, handle.createWriteStream());

      const metaTemp = tempPathFor(metaPathOf(file));
      cleanup.push(metaTemp);
      await writeFile(metaTemp, JSON.stringify({ contentType: opts.contentType ?? DEFAULT_CONTENT_TYPE }));
      // Sidecar first: once the data file is visible, its content type already is too (a CDN
      // must never see a fresh object with a default type). If the data rename then fails (e.g.
      // the key is a directory), the catch below removes the sidecar again.
      await rename(metaTemp, metaPathOf(file));
      cleanup.push(metaPathOf(file));
      await rename(tempPath, file);
      return meter.result();
    } catch (error) {
      source.destroy(); // a producer we never read from must not hang
      await Promise.all(cleanup.map((temp) => rm(temp, { force: true })));
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
      const info = await this.#info(file, stats);
      if (!range) return { ...info, body: handle.createReadStream() };

      if (range.start >= stats.size) {
        throw new RangeError(`Range start ${range.start} is beyond the object's ${stats.size} bytes`);
      }
      const end = Math.min(range.end ?? Number.POSITIVE_INFINITY, stats.size - 1);
      return { ...info, range: { start: range.start, end }, body: handle.createReadStream({ start: range.start, end }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const file = this.#file(key);
    const stats = await ifExists(stat(file));
    if (!stats?.isFile()) return null;
    return this.#info(file, stats);
  }

  async delete(key: string): Promise<void> {
    const file = this.#file(key);
    await removeObjectFile(file);
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
      removed += entry.isDirectory() ? await removeTree(entryPath) : Number(await removeObjectFile(entryPath));
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

  async #info(file: string, stats: Stats): Promise<ObjectInfo> {
    return { sizeInBytes: stats.size, contentType: await readContentType(file), etag: etagOf(stats) };
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

const metaPathOf = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.meta.json`);

const tempPathFor = (file: string) =>
  path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);

/**
 * Creates the temp file for `file` in the same directory (so the final rename is atomic). Retries
 * when a concurrent delete prunes the freshly created, still empty directory; once the temp file
 * exists the directory is no longer empty and stays.
 */
async function openTemp(file: string): Promise<{ handle: FileHandle; tempPath: string }> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(path.dirname(file), { recursive: true });
    const tempPath = tempPathFor(file);
    try {
      return { handle: await open(tempPath, "wx"), tempPath };
    } catch (error) {
      if (errorCode(error) !== "ENOENT" || attempt >= 3) throw error;
    }
  }
}

async function readContentType(file: string): Promise<string> {
  const raw = await ifExists(readFile(metaPathOf(file), "utf8"));
  try {
    const meta: unknown = raw === null ? null : JSON.parse(raw);
    const contentType = (meta as { contentType?: unknown } | null)?.contentType;
    return typeof contentType === "string" ? contentType : DEFAULT_CONTENT_TYPE;
  } catch {
    return DEFAULT_CONTENT_TYPE; // a hand-edited, broken sidecar must not make the object unreadable
  }
}

/** Inode, size and mtime: every put renames a new inode into place, so this changes with content. */
const etagOf = (stats: Stats) =>
  `"${[stats.ino, stats.size, Math.trunc(stats.mtimeMs)].map((n) => n.toString(36)).join("-")}"`;

/** Removes an object and its sidecar; true if the object existed. */
async function removeObjectFile(file: string): Promise<boolean> {
  const existed = (await ifExists(unlink(file))) !== null;
  await ifExists(unlink(metaPathOf(file)));
  return existed;
}

/** Removes a directory tree (hidden sidecars and stale temp files included), counting objects. */
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
