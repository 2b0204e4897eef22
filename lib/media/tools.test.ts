import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { checkMediaTools, isMediaToolError, MediaToolError, runTool, withTempDir } from "@/lib/media/tools";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** ffmpeg producing an endless stream (lavfi is fine here: runTool is generic, this is not user input). */
const endless = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=440", "-f", "null", "-"];

describe("runTool", () => {
  it("returns stdout and the exit code", async () => {
    const r = await runTool("ffmpeg", ["-hide_banner", "-version"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toMatch(/^ffmpeg version /);
    expect(r.truncated).toBe(false);
  });

  it("reports an absent binary as missing-tool", async () => {
    const error = await runTool("/nonexistent/bin/ffmpeg-bogus", ["-version"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaToolError);
    expect((error as MediaToolError).code).toBe("missing-tool");
    expect((error as MediaToolError).tool).toBe("ffmpeg-bogus");
  });

  it("reports a non-zero exit as failed with the stderr tail", async () => {
    const error = await runTool("ffmpeg", ["-hide_banner", "-nostdin", "-i", "/nonexistent/input.mp4"]).catch((e: unknown) => e);
    expect(isMediaToolError(error, "failed")).toBe(true);
    expect((error as MediaToolError).exitCode).not.toBe(0);
    expect((error as MediaToolError).stderrTail).toMatch(/No such file or directory/);
    expect((error as MediaToolError).message).toMatch(/No such file/);
  });

  it("kills the child when the timeout passes", async () => {
    let pid = 0;
    const started = Date.now();
    const error = await runTool("ffmpeg", endless, { timeoutMs: 300, onSpawn: (p) => (pid = p) }).catch((e: unknown) => e);
    expect(isMediaToolError(error, "timeout")).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it("kills the child when the signal aborts", async () => {
    let pid = 0;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user cancelled")), 200);
    const error = await runTool("ffmpeg", endless, { signal: controller.signal, onSpawn: (p) => (pid = p) }).catch((e: unknown) => e);
    expect(isMediaToolError(error, "aborted")).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });

  it("does not start when the signal already fired or no time is left", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runTool("ffmpeg", ["-version"], { signal: controller.signal })).rejects.toMatchObject({ code: "aborted" });
    await expect(runTool("ffmpeg", ["-version"], { timeoutMs: 0 })).rejects.toMatchObject({ code: "timeout" });
  });

  const rawForever = ["-hide_banner", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=s=64x64", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"];

  it("kills the child and fails with too-large when stdout passes the cap", async () => {
    let pid = 0;
    const error = await runTool("ffmpeg", rawForever, { maxStdoutBytes: 100_000, onSpawn: (p) => (pid = p) }).catch((e: unknown) => e);
    expect(isMediaToolError(error, "too-large")).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });

  it("can truncate stdout at the cap instead", async () => {
    const r = await runTool("ffmpeg", rawForever, { maxStdoutBytes: 100_000, stdoutOverflow: "truncate" });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(100_000);
  });

  it("streams stdout to a callback and surfaces its errors", async () => {
    let bytes = 0;
    const r = await runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=s=32x32:d=1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"], {
      onStdout: (chunk) => (bytes += chunk.length),
    });
    expect(bytes).toBe(32 * 32 * 3 * 25);
    expect(r.stdout.length).toBe(0);
    await expect(
      runTool("ffmpeg", rawForever, {
        onStdout: () => {
          throw new Error("consumer broke");
        },
      }),
    ).rejects.toThrow("consumer broke");
  });
});

describe("withTempDir", () => {
  it("creates a private folder under the OS temp dir and removes it even on error", async () => {
    let seen = "";
    await expect(
      withTempDir(async (dir) => {
        seen = dir;
        expect((await stat(dir)).mode & 0o777).toBe(0o700);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(seen).not.toBe("");
    expect(existsSync(seen)).toBe(false);
  });
});

describe("checkMediaTools", () => {
  it("lists the installed tools with versions, and marks bogus paths unavailable", async () => {
    const status = await checkMediaTools({ tools: { pdfimages: "/nonexistent/pdfimages" } });
    expect(status.ffmpeg).toMatchObject({ available: true, version: expect.stringMatching(/^\d/) });
    expect(status.ffprobe.available).toBe(true);
    expect(status.pdfinfo).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    expect(status.pdftotext.available).toBe(true);
    expect(status.pdftoppm).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    expect(status.pocketsphinx_continuous).toMatchObject({ available: true, version: expect.any(String) });
    expect(status.pdfimages).toMatchObject({ available: false, binary: "/nonexistent/pdfimages" });
    expect(status.pdfimages.detail).toMatch(/not installed/);
  });

  it("marks pocketsphinx unavailable when its model is missing", async () => {
    const status = await checkMediaTools({ pocketsphinxModelDir: "/nonexistent/model" });
    expect(status.pocketsphinx_continuous.available).toBe(false);
    expect(status.pocketsphinx_continuous.detail).toMatch(/model/);
  });
});

describe("runTool argument safety", () => {
  it("rejects arguments that cannot be passed to a process", async () => {
    await expect(runTool("ffprobe", ["-i", "bad\u0000name.mp4"])).rejects.toMatchObject({ name: "MediaToolError", code: "invalid-input" });
  });
});
