import { crc32, createDeflate } from "node:zlib";

/**
 * PNGs written byte by byte, for the decoder's edge cases: a huge 1-bit image that compresses to a
 * few hundred KB, and a tiny file whose header lies about its size.
 */
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function ihdr(width: number, height: number, bitDepth: number, colourType: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = bitDepth;
  data[9] = colourType;
  return chunk("IHDR", data);
}

/** An all-black 1-bit greyscale PNG (60000² compresses to about 440 KB); rows are streamed, never all in memory. */
export async function blackBitmapPng(width: number, height: number): Promise<Buffer> {
  const row = Buffer.alloc(1 + Math.ceil(width / 8)); // filter byte 0, then zero bits
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (data: Buffer) => parts.push(data));
  const ended = new Promise((resolve) => deflate.on("end", resolve));
  for (let y = 0; y < height; y++) {
    if (!deflate.write(row)) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await ended;
  return Buffer.concat([SIGNATURE, ihdr(width, height, 1, 0), chunk("IDAT", Buffer.concat(parts)), chunk("IEND", Buffer.alloc(0))]);
}

/** 69 bytes: a valid signature and IHDR claiming `width`×`height` RGB, then 12 bytes that are no image data. */
export function forgedHeaderPng(width = 20_000, height = 20_000): Buffer {
  const garbage = Buffer.from("not pixels!!", "latin1");
  return Buffer.concat([SIGNATURE, ihdr(width, height, 8, 2), chunk("IDAT", garbage), chunk("IEND", Buffer.alloc(0))]);
}
