import { describe, expect, it } from "vitest";
import { assertSameOrigin } from "@/lib/http/session-auth";

const request = (method: string, headers: Record<string, string>) => new Request("http://portal.test/api/portal/me/preferences", { method, headers });
const refused = (r: Request) => {
  try {
    assertSameOrigin(r);
    return null;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe("cross-site request defence for session writes", () => {
  it("lets reads through and same-origin JSON writes", () => {
    expect(refused(request("GET", {}))).toBeNull();
    expect(refused(request("PUT", { "sec-fetch-site": "same-origin", "content-type": "application/json" }))).toBeNull();
    expect(refused(request("POST", { origin: "http://portal.test", host: "portal.test", "content-type": "application/json; charset=utf-8" }))).toBeNull();
  });

  it("refuses other sites, missing origins and non-JSON bodies", () => {
    const json = { "content-type": "application/json" };
    expect(refused(request("POST", { ...json, "sec-fetch-site": "same-site" }))).toBe("auth/cross-site-request");
    expect(refused(request("POST", { ...json, origin: "http://evil.test", host: "portal.test" }))).toBe("auth/cross-site-request");
    expect(refused(request("POST", { ...json, origin: "null", host: "portal.test" }))).toBe("auth/cross-site-request");
    expect(refused(request("POST", { ...json, host: "portal.test" }))).toBe("auth/cross-site-request");
    expect(refused(request("POST", { "sec-fetch-site": "same-origin", "content-type": "text/plain" }))).toBe("auth/cross-site-request");
  });
});
