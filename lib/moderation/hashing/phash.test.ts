import sharp, { type Sharp } from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { dHash, hammingDistance, normalizeHash, perceptualHash } from "./phash";

const W = 800;
const H = 600;

/** A structured test picture: gradient background, shapes and text-like bars. */
function sceneA(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#1d3557"/><stop offset="1" stop-color="#a8dadc"/>
    </linearGradient>
  </defs>
  <rect width="${W}" height="${H}" fill="url(#g)"/>
  <circle cx="220" cy="200" r="130" fill="#e63946"/>
  <rect x="450" y="320" width="280" height="200" fill="#f1faee"/>
  <polygon points="100,560 300,360 420,560" fill="#457b9d"/>
  <rect x="480" y="80" width="240" height="30" fill="#222"/>
  <rect x="480" y="140" width="180" height="30" fill="#222"/>
</svg>`;
}

/** Different content: other shapes, other layout. */
function sceneB(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <radialGradient id="r" cx="0.7" cy="0.3" r="0.8">
      <stop offset="0" stop-color="#ffe066"/><stop offset="1" stop-color="#5c2a9d"/>
    </radialGradient>
  </defs>
  <rect width="${W}" height="${H}" fill="url(#r)"/>
  <ellipse cx="600" cy="420" rx="170" ry="90" fill="#0b0b0b"/>
  <rect x="60" y="60" width="120" height="480" fill="#ffffff"/>
  <polygon points="300,100 520,80 420,300" fill="#2ec4b6"/>
  <circle cx="330" cy="470" r="60" fill="#ff006e"/>
</svg>`;
}

async function png(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(svg)).png().toBuffer();
}

let original: Buffer;
let originalHash: string;

beforeAll(async () => {
  original = await png(sceneA());
  originalHash = await perceptualHash(original);
});

describe("perceptualHash", () => {
  it("is 16 lowercase hex characters and deterministic", async () => {
    expect(originalHash).toMatch(/^[0-9a-f]{16}$/);
    expect(await perceptualHash(original)).toBe(originalHash);
    expect(await perceptualHash(await png(sceneA()))).toBe(originalHash);
  });

  it.each([
    ["resized to 50%", (s: Sharp) => s.resize(W / 2, H / 2).png()],
    ["resized to 25%", (s: Sharp) => s.resize(W / 4, H / 4).png()],
    ["re-encoded as JPEG q60", (s: Sharp) => s.jpeg({ quality: 60 })],
    ["re-encoded as WebP", (s: Sharp) => s.webp({ quality: 75 })],
    ["slightly brightened", (s: Sharp) => s.modulate({ brightness: 1.1 }).png()],
    ["25% and JPEG q60", (s: Sharp) => s.resize(W / 4, H / 4).jpeg({ quality: 60 })],
  ])("stays within 8 bits when %s", async (_name, transform) => {
    const variant = await transform(sharp(original)).toBuffer();
    expect(hammingDistance(originalHash, await perceptualHash(variant))).toBeLessThanOrEqual(8);
  });

  it("is far (>= 20 bits) from a different image", async () => {
    const other = await perceptualHash(await png(sceneB()));
    expect(hammingDistance(originalHash, other)).toBeGreaterThanOrEqual(20);
  });

  it("applies EXIF orientation", async () => {
    // Pixels stored rotated by 90° with orientation 6 (display: rotate 90° clockwise) = the original.
    const stored = await sharp(original).rotate(-90).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
    expect(hammingDistance(originalHash, await perceptualHash(stored))).toBeLessThanOrEqual(8);
  });

  it("flattens transparency on white", async () => {
    const transparent = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const white = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#ffffff" } }).png().toBuffer();
    expect(await perceptualHash(transparent)).toBe(await perceptualHash(white));
  });

  it("refuses non-images", async () => {
    await expect(perceptualHash(Buffer.from("not an image"))).rejects.toThrow();
  });
});

describe("dHash", () => {
  it("is deterministic and robust to resize and re-encode", async () => {
    const h = await dHash(original);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(await dHash(original)).toBe(h);
    const small = await sharp(original).resize(W / 4, H / 4).jpeg({ quality: 60 }).toBuffer();
    expect(hammingDistance(h, await dHash(small))).toBeLessThanOrEqual(8);
    expect(hammingDistance(h, await dHash(await png(sceneB())))).toBeGreaterThanOrEqual(20);
  });
});

describe("hammingDistance", () => {
  it("counts differing bits", () => {
    expect(hammingDistance("0000000000000000", "0000000000000000")).toBe(0);
    expect(hammingDistance("0000000000000000", "ffffffffffffffff")).toBe(64);
    expect(hammingDistance("8000000000000001", "0000000000000000")).toBe(2);
    expect(hammingDistance("ABCDEF0123456789", "abcdef0123456789")).toBe(0);
  });

  it("refuses malformed hashes", () => {
    expect(() => hammingDistance("abc", "0000000000000000")).toThrow(/16 hex/);
    expect(() => normalizeHash("zzzzzzzzzzzzzzzz")).toThrow(/16 hex/);
  });
});
