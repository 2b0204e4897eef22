import path from "node:path";

/** Keeping ffmpeg/ffprobe to the uploaded file: no other protocols, no playlist or indirection formats. */

/**
 * Refer to a local file unambiguously for ffmpeg/ffprobe: absolute and with the `file:` protocol, so a
 * name like `-x`, `http:…` or `concat:…` is never read as an option or another protocol.
 */
export function ffmpegInputUrl(filePath: string): string {
  return `file:${path.resolve(filePath)}`;
}

/**
 * Demuxers accepted for uploaded audio/video. Playlist/indirection formats (hls, concat, image2 patterns,
 * lavfi, tty…) are excluded: they can make ffmpeg read other local files or URLs (SSRF / file disclosure).
 */
export const ALLOWED_DEMUXERS = [
  "mov", "mp4", "matroska", "webm", "avi", "flv", "mpegts", "mpeg", "asf", "ogg", "mp3", "wav", "flac", "aac",
  "ac3", "eac3", "amr", "aiff", "caf", "w64", "gif", "apng", "m4v", "h264", "hevc", "mpegvideo", "dv", "mxf", "rm",
  "nut", "ivf", "wv", "ape", "tta", "au", "dts", "truehd", "mpc", "mpc8", "wtv",
] as const;

/** ffmpeg/ffprobe options placed before `-i`: only the file protocol, only the allowed demuxers. */
export function safeInputOptions(): string[] {
  return ["-protocol_whitelist", "file", "-format_whitelist", ALLOWED_DEMUXERS.join(",")];
}
