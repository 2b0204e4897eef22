import { beforeAll, describe, expect, it } from "vitest";
import type { SignedTarget } from "@/lib/cdn/signing";

// Keys from the environment: no database needed. Set before the config is first read.
process.env.CDN_SIGNING_KEYS = `new:${"n".repeat(32)},old:${"o".repeat(32)}`;
let signing: typeof import("@/lib/cdn/signing");

beforeAll(async () => {
  signing = await import("@/lib/cdn/signing");
});

const target: SignedTarget = { projectId: "p", assetIdentifier: "a", resource: "content", selector: "imageTransform[width=10]" };

describe("signed CDN URLs", () => {
  it("signs with the first key and verifies until expiry", async () => {
    const exp = Date.now() + 60_000;
    const sig = await signing.sign(target, exp);
    expect(sig).toMatch(/^new\.[A-Za-z0-9_-]{43}$/);
    expect(await signing.verify(target, String(exp), sig)).toBe("valid");
    expect(await signing.verify(target, String(exp), sig, exp + 1)).toBe("expired");
  });

  it("refuses any change to what the signature covers", async () => {
    const exp = Date.now() + 60_000;
    const sig = await signing.sign(target, exp);
    for (const changed of [
      { ...target, projectId: "q" },
      { ...target, assetIdentifier: "b" },
      { ...target, resource: "preview" as const },
      { ...target, selector: "imageTransform[width=11]" },
      { ...target, selector: "" },
    ]) {
      expect(await signing.verify(changed, String(exp), sig)).toBe("invalid");
    }
    expect(await signing.verify(target, String(exp + 1), sig)).toBe("invalid");
    expect(await signing.verify(target, String(exp), `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`)).toBe("invalid");
    expect(await signing.verify(target, String(exp), sig.slice(0, -4))).toBe("invalid");
    // Every other spelling of the last character, including ones that decode to the same bytes.
    for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") {
      if (c !== sig.at(-1)) expect(await signing.verify(target, String(exp), `${sig.slice(0, -1)}${c}`)).toBe("invalid");
    }
    expect(await signing.verify(target, "12x", sig)).toBe("invalid");
    expect(await signing.verify(target, String(exp), `nokey.${sig.split(".")[1]}`)).toBe("invalid");
    expect(await signing.verify(target, String(exp), "garbage")).toBe("invalid");
  });

  it("verifies signatures of an older key (rotation)", async () => {
    const { createHmac } = await import("node:crypto");
    const exp = Date.now() + 60_000;
    const mac = createHmac("sha256", Buffer.from("o".repeat(32))).update(signing.canonicalString(target, exp)).digest("base64url");
    expect(await signing.verify(target, String(exp), `old.${mac}`)).toBe("valid");
  });
});
