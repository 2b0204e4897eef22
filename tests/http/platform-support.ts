import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, inject } from "vitest";
import type { ApiResponse } from "./support";

/** Helpers of the platform tests (platform*.test.ts): the admin CLI as a child process, and replayed responses. */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the admin CLI against the test server's database (DATABASE_URL makes it join, not start, PostgreSQL). */
export function runCli(args: string[], { viaNpm = false } = {}): Promise<CliResult> {
  const [command, argv] = viaNpm
    ? ["npm", ["run", "--silent", "admin", "--", ...args]]
    : [process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The single JSON line a successful CLI command prints. */
export function cliJson(result: CliResult): any {
  if (result.code !== 0) throw new Error(`CLI failed (${result.code}): ${result.stderr}`);
  const lines = result.stdout.split("\n").filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(result.stdout.endsWith("\n")).toBe(true);
  return JSON.parse(lines[0] ?? "");
}

/** The message of the JSON error line a failed CLI command prints on stderr. */
export function cliError(result: CliResult): string {
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("{"));
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0] ?? "") as { error?: unknown };
  expect(typeof parsed.error).toBe("string");
  return parsed.error as string;
}

/** A replayed response: the stored status and body, a fresh X-Request-Id, and Idempotent-Replayed. */
export function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"));
  expect(replay.headers.get("x-request-id")).toMatch(UUID_RE);
  expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
}
