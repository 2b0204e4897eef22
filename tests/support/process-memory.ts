import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";

/** Resident memory of a process (Linux /proc), for the JSON-body memory test and bench/json-memory.ts. */
export interface ProcessMemory {
  rssBytes: number;
  /** VmHWM: the peak resident set since start or since the last resetPeak(). */
  peakRssBytes: number;
}

export async function memoryOf(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kib("VmRSS"), peakRssBytes: kib("VmHWM") };
}

/** Resets VmHWM to the current RSS (`5` in clear_refs), so the next peak is this phase's own. */
export async function resetPeak(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, "5");
}

/**
 * A Create Asset JSON body of at most `bodyBytes` bytes whose `content` is base64 of random bytes
 * (random so that nothing downstream can shortcut it; declared as a plain binary file).
 */
export function jsonCreateBody(bodyBytes: number, fields: Record<string, unknown> = {}): { body: Buffer; contentBytes: number } {
  const envelope = (base64: string) => JSON.stringify({ name: "memory.bin", ...fields, content: { type: "application/octet-stream", base64 } });
  const contentBytes = Math.floor((bodyBytes - envelope("").length) / 4) * 3;
  return { body: Buffer.from(envelope(randomBytes(contentBytes).toString("base64"))), contentBytes };
}
