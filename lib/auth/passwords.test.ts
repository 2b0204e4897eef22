import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, needsRehash, verifyPassword } from "@/lib/auth/passwords";

describe("password hashes", () => {
  it("are argon2id PHC strings with a fresh salt that verify only the right password", async () => {
    const [a, b] = await Promise.all([hashPassword("correct horse"), hashPassword("correct horse")]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("correct horse", b)).toBe(true);
    expect(await verifyPassword("correct horsE", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
    expect(needsRehash(a)).toBe(false);
  });

  it("treats composed and decomposed accents as the same password", async () => {
    const stored = await hashPassword("caf\u00e9-latte");
    expect(await verifyPassword("cafe\u0301-latte", stored)).toBe(true);
  });

  it("still verifies hashes written by the earlier scrypt format, and asks for a rehash", async () => {
    const salt = randomBytes(16);
    const key = scryptSync("old-password", salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = ["scrypt", 1024, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    expect(await verifyPassword("old-password", stored)).toBe(true);
    expect(await verifyPassword("old-passwore", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(true);
  });

  it("refuses malformed hashes instead of throwing", async () => {
    const good = await hashPassword("pw-12345");
    for (const stored of ["", "plain", "bcrypt$x", "$argon2id$v=19$m=19456,t=2,p=1$short$short", "scrypt$1000$8$1$a$b", `${good}$extra`]) {
      expect(await verifyPassword("pw-12345", stored), stored).toBe(false);
    }
  });
});
