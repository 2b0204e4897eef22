import { access } from "node:fs/promises";
import { runTool } from "./run-tool";
import { DEFAULT_POCKETSPHINX_MODEL_DIR, MEDIA_TOOL_NAMES, toolBinary, type MediaToolName, type MediaToolPaths } from "./tool-binaries";
import { errorMessage } from "@/lib/core/errors";

/** Which media tools are installed, and their versions. */

export interface ToolStatus {
  available: boolean;
  /** Binary that was tried. */
  binary: string;
  version?: string;
  /** Why it is unavailable (or a note, e.g. the model folder for pocketsphinx). */
  detail?: string;
}
export type MediaToolsStatus = Record<MediaToolName, ToolStatus>;

function parseVersion(output: string): string | undefined {
  return /\bversion\s+(\S+)/i.exec(output)?.[1];
}

const versionCache = new Map<string, Promise<string>>();

/**
 * Version of the pocketsphinx in use. pocketsphinx_continuous 0.8 has no version flag, so for the
 * default binary the Debian package version is read with dpkg-query (e.g. "0.8+5prealpha+1-15");
 * "unknown" for custom binaries or when dpkg-query is absent.
 */
export function pocketsphinxVersion(paths?: MediaToolPaths): Promise<string> {
  const binary = toolBinary("pocketsphinx_continuous", paths);
  let cached = versionCache.get(binary);
  if (!cached) {
    cached =
      binary === "pocketsphinx_continuous" || binary === "/usr/bin/pocketsphinx_continuous"
        ? runTool("dpkg-query", ["-W", "-f", "${Version}", "pocketsphinx"], { timeoutMs: 5_000, maxStdoutBytes: 4096 })
            .then((r) => r.stdout.toString("utf8").trim() || "unknown")
            .catch(() => "unknown")
        : Promise.resolve("unknown");
    versionCache.set(binary, cached);
  }
  return cached;
}

/** Which tools are installed (and their versions). Never throws; takes ~50–100 ms. */
export async function checkMediaTools(
  options: { tools?: MediaToolPaths; pocketsphinxModelDir?: string; timeoutMs?: number } = {},
): Promise<MediaToolsStatus> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const versionArgs: Record<MediaToolName, string[]> = {
    ffmpeg: ["-hide_banner", "-version"],
    ffprobe: ["-hide_banner", "-version"],
    pdfinfo: ["-v"],
    pdftotext: ["-v"],
    pdfimages: ["-v"],
    pdftoppm: ["-v"],
    // No version flag: run without arguments (prints usage, exits 1) just to see that it starts.
    pocketsphinx_continuous: [],
    pandoc: ["--version"],
  };
  const entries = await Promise.all(
    MEDIA_TOOL_NAMES.map(async (name): Promise<[MediaToolName, ToolStatus]> => {
      const binary = toolBinary(name, options.tools);
      try {
        const r = await runTool(binary, versionArgs[name], { timeoutMs, maxStdoutBytes: 256 * 1024, okExitCodes: [0, 1, 99] });
        const status: ToolStatus = { available: true, binary, version: parseVersion(`${r.stdout.toString("utf8")}\n${r.stderr}`) };
        if (name === "pocketsphinx_continuous") {
          status.version = await pocketsphinxVersion(options.tools);
          const modelDir = options.pocketsphinxModelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
          try {
            await access(modelDir);
            status.detail = `model ${modelDir}`;
          } catch {
            status.available = false;
            status.detail = `model folder ${modelDir} is missing`;
          }
        }
        return [name, status];
      } catch (error) {
        return [name, { available: false, binary, detail: errorMessage(error) }];
      }
    }),
  );
  return Object.fromEntries(entries) as MediaToolsStatus;
}
