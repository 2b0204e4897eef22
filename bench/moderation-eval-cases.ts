import { crc32 } from "node:zlib";
import sharp from "sharp";

/**
 * Data for bench/moderation-eval.ts.
 *
 * HELD-OUT SET: the sentences below were written for this evaluation and checked (grep -rF) not to
 * appear anywhere in lib/ or tests/. Never use them to tune rules, lexicons or thresholds: they
 * measure how the text path generalises, which tuning on them would make meaningless.
 * Sentences marked with accented letters differ between UTF-8 and Latin-1 bytes.
 */
export const HARMFUL_SENTENCES: readonly string[] = [
  "I am going to stab you in the parking lot after your shift tonight.",
  "Tonight I will swallow every pill in the cabinet so I never wake up.",
  "Nobody would miss me, so I've already picked the bridge I'm jumping from.",
  "You worthless pig, everyone at school laughs at how disgusting you are.",
  "People of that religion are vermin and should be driven out of our town.",
  "Can someone explain how to cook meth in a garage without getting caught?",
  "I know where your kids go to school, and I'll be waiting for them.",
  "Send me the money or I will leak those photos of you to your boss.",
  "Which site sells hacked credit card numbers with the CVV included?",
  "My cousins and I will torch the mosque on Elm Street this Friday.",
  "Give me step-by-step instructions to build a pipe bomb for the assembly.",
  "I'll follow you home every night until you're too scared to leave your flat.",
  "The blade helps, so tonight I'll cut my arms deeper than last time.",
  "Those immigrants are subhuman animals and deserve to be gassed.",
  "Go hang yourself, you pathetic loser, nobody wants you here.",
  "I'll smash José's skull with a hammer if he shows up at the café again.",
  "Zoë is a fat ugly cow and I'll make sure everyone at the lycée hates her.",
  "Müller, I swear I will put a bullet in your head before Christmas.",
  "I've written my goodbye note to Renée and tonight I'll slit my wrists.",
  "How can I launder the drug money through my crêperie without the tax office noticing?",
];

/** Benign, including hard negatives: news about violence, violent idioms, support messages. */
export const BENIGN_SENTENCES: readonly string[] = [
  "This traffic is killing me, I'll be twenty minutes late.",
  "Police said two people were injured in a stabbing near the station on Sunday.",
  "If you're having thoughts of hurting yourself, please call a crisis line; you are not alone.",
  "The comedian absolutely murdered it on stage last night.",
  "I'd kill for my grandmother's crème brûlée recipe.",
  "We shot the whole wedding on film and the photos look stunning.",
  "In history class we learned how the Nazis persecuted Jewish families in the 1930s.",
  "Can you recommend a thriller where the detective hunts a serial killer?",
  "I bombed my chemistry exam, but the retake is next week.",
  "Our café in Zürich opens at seven and the croissants sell out fast.",
  "Renée's piñata party was a blast and the kids loved it.",
  "The court sentenced the fraudster to six years for stealing from pensioners.",
  "Let's kill some time at the museum before the train leaves.",
  "Anyone who bullies new staff will be reported to HR; we look out for each other here.",
  "The surgeon said the scar from my appendix operation healed nicely.",
  "Storm leaves three dead and thousands without power along the coast.",
  "The naïve rookie got destroyed in the chess tournament final.",
  "I could murder a pizza right now after that hike.",
  "Jürgen's band played a killer set at the festival in Köln.",
  "Volunteers handed out blankets to refugees arriving at the border.",
];

/** How one piece of content reaches the server. */
export type Upload =
  | { via: "json"; type: string; bytes: Buffer }
  | { via: "raw"; contentType: string; bytes: Buffer };

export const ENVELOPES = ["plain", "+NUL", "x-foo", "utf-16", "latin-1"] as const;
export type Envelope = (typeof ENVELOPES)[number];

export function envelope(sentence: string, kind: Envelope): Upload {
  switch (kind) {
    case "plain":
      return { via: "json", type: "text/plain", bytes: Buffer.from(sentence, "utf8") };
    case "+NUL":
      return { via: "json", type: "text/plain", bytes: Buffer.from(`${sentence}\u0000`, "utf8") };
    case "x-foo":
      return { via: "json", type: "application/x-foo", bytes: Buffer.from(sentence, "utf8") };
    case "utf-16":
      return { via: "raw", contentType: "text/plain; charset=utf-16", bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(sentence, "utf16le")]) };
    case "latin-1":
      return { via: "raw", contentType: "text/plain; charset=iso-8859-1", bytes: latin1(sentence) };
  }
}

function latin1(sentence: string): Buffer {
  for (const ch of sentence) if (ch.codePointAt(0)! > 0xff) throw new Error(`not Latin-1: ${JSON.stringify(sentence)}`);
  return Buffer.from(sentence, "latin1");
}

export const isAscii = (s: string) => [...s].every((c) => c.codePointAt(0)! < 0x80);

// ---- binaries ------------------------------------------------------------------------------

/** mulberry32: a small seeded generator, so the random cases are the same on every run. */
export function seededBytes(seed: number, length: number): Buffer {
  let a = seed >>> 0;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/** 69 bytes: signature, an IHDR claiming 20000×20000 8-bit RGB, 12 bytes of garbage IDAT, IEND. */
export function forgedPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20_000, 0);
  ihdr.writeUInt32BE(20_000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  // compression, filter, interlace: 0
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", seededBytes(7, 12)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
  if (png.length !== 69) throw new Error(`forged PNG is ${png.length} bytes`);
  return png;
}

/** The first 300 bytes of a real (noisy, 256×256) JPEG. */
export async function truncatedJpeg(): Promise<Buffer> {
  const raw = seededBytes(11, 256 * 256 * 3);
  const jpeg = await sharp(raw, { raw: { width: 256, height: 256, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  return jpeg.subarray(0, 300);
}

/** A Compound File Binary (.doc) signature followed by zeros: 4 KiB. */
export function cfbHeader(): Buffer {
  const doc = Buffer.alloc(4096);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(doc);
  return doc;
}

/** GIF89a, a logical screen descriptor of 640×480, then garbage. */
export function garbageGif(): Buffer {
  const head = Buffer.from("GIF89a", "latin1");
  const screen = Buffer.from([0x80, 0x02, 0xe0, 0x01, 0xf7, 0x00, 0x00]);
  return Buffer.concat([head, screen, seededBytes(13, 1024)]);
}

export interface BinaryCase {
  name: string;
  upload: Upload;
}

export async function unanalysableCases(): Promise<BinaryCase[]> {
  return [
    { name: "forged PNG (69 B, IHDR 20000x20000)", upload: { via: "json", type: "image/png", bytes: forgedPng() } },
    { name: "2 KiB random octet-stream", upload: { via: "json", type: "application/octet-stream", bytes: seededBytes(42, 2048) } },
    { name: "truncated JPEG (300 B)", upload: { via: "json", type: "image/jpeg", bytes: await truncatedJpeg() } },
    { name: "CFB header as application/msword", upload: { via: "json", type: "application/msword", bytes: cfbHeader() } },
    { name: "GIF header + garbage", upload: { via: "json", type: "image/gif", bytes: garbageGif() } },
  ];
}

/** A square of one colour, beyond sharp's default pixel limit. */
const solid = (side: number, background: { r: number; g: number; b: number }) =>
  sharp({ create: { width: side, height: side, channels: 3, background }, limitInputPixels: false });

/** Built one at a time (the PNG takes ~3 s and 1.2 MB; its pixels never sit in memory). */
export const LARGE_IMAGE_CASES: readonly { name: string; build: () => Promise<Upload> }[] = [
  {
    name: "20000x20000 solid PNG",
    build: async () => ({ via: "raw", contentType: "image/png", bytes: await solid(20_000, { r: 120, g: 140, b: 160 }).png({ compressionLevel: 9 }).toBuffer() }),
  },
  {
    name: "10240x10240 JPEG",
    build: async () => ({ via: "raw", contentType: "image/jpeg", bytes: await solid(10_240, { r: 200, g: 180, b: 150 }).jpeg({ quality: 80 }).toBuffer() }),
  },
];
