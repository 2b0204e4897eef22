import { describe, expect, it } from "vitest";
import { generateSecret } from "./secrets";

describe("generateSecret", () => {
  it("makes Standard Webhooks secrets: whsec_ and the base64 of 32 random bytes", () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
  });

  it("never repeats", () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));
    expect(secrets.size).toBe(100);
  });
});
