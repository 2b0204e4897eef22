import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "@/lib/admin/passwords";

describe("password hashes", () => {
  it("are self-describing scrypt hashes with a fresh salt that verify only the right password", async () => {
    const [a, b] = await Promise.all([hashPassword("correct horse"), hashPassword("correct horse")]);
    expect(a).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("correct horse", b)).toBe(true);
    expect(await verifyPassword("correct horsE", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("refuses malformed hashes and parameters beyond the bounds instead of throwing", async () => {
    const good = await hashPassword("pw-12345");
    const parts = good.split("$");
    const withParams = (n: string, r = "8", p = "1") => ["scrypt", n, r, p, parts[4], parts[5]].join("$");
    for (const stored of ["", "plain", "bcrypt$x", withParams("1000"), withParams(String(2 ** 21)), withParams("131072", "0"), `${good}$extra`]) {
      expect(await verifyPassword("pw-12345", stored), stored).toBe(false);
    }
  });
});
