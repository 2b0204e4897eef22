/** The external media tools by name, and which binary runs each. */

export const MEDIA_TOOL_NAMES = ["ffmpeg", "ffprobe", "pdfinfo", "pdftotext", "pdfimages", "pdftoppm", "pocketsphinx_continuous", "pandoc"] as const;
export type MediaToolName = (typeof MEDIA_TOOL_NAMES)[number];

/** Override the binary used for a tool (absolute path or a name looked up on PATH). */
export type MediaToolPaths = Partial<Record<MediaToolName, string>>;

export function toolBinary(name: MediaToolName, paths?: MediaToolPaths): string {
  return paths?.[name] ?? name;
}

/** Debian's pocketsphinx-en-us model folder. */
export const DEFAULT_POCKETSPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
