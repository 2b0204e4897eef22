import { describe, expect, it } from "vitest";
import { isApiError } from "@/lib/core/errors";
import { assertConnectorUrlAllowed, connectorUrlProblem } from "./url-policy";

function refusal(url: string, allowPrivate = false): string | null {
  try {
    assertConnectorUrlAllowed(url, allowPrivate);
    return null;
  } catch (error) {
    if (!isApiError(error)) throw error;
    expect(error.code).toBe("connector/url-not-allowed");
    expect(error.status).toBe(422);
    return error.message;
  }
}

describe("connectorUrlProblem", () => {
  it("accepts http and https URLs", () => {
    expect(connectorUrlProblem("https://example.com/hook")).toBeNull();
    expect(connectorUrlProblem("http://example.com:8080/a?b=c")).toBeNull();
  });

  it("refuses other schemes, credentials and non-URLs", () => {
    expect(connectorUrlProblem("ftp://example.com/x")).toMatch(/http/);
    expect(connectorUrlProblem("javascript:alert(1)")).toMatch(/http/);
    expect(connectorUrlProblem("mailto:a@example.com")).toMatch(/http/);
    expect(connectorUrlProblem("https://user:pass@example.com/")).toMatch(/credentials/);
    expect(connectorUrlProblem("https://user@example.com/")).toMatch(/credentials/);
    expect(connectorUrlProblem("https://:pass@example.com/")).toMatch(/credentials/);
    expect(connectorUrlProblem("not a url")).toMatch(/absolute URL/);
  });
});

describe("assertConnectorUrlAllowed", () => {
  it("allows public addresses and host names (names are checked again when delivering)", () => {
    expect(refusal("https://hooks.slack.com/services/T/B/X")).toBeNull();
    expect(refusal("https://8.8.8.8/hook")).toBeNull();
    expect(refusal("https://[2606:4700:4700::1111]/hook")).toBeNull();
    expect(refusal("https://internal.example/hook")).toBeNull();
  });

  it("refuses private, loopback, link-local and unspecified literals, in any spelling", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://127.1/",
      "http://2130706433/",
      "http://0x7f.0.0.1/",
      "http://10.0.0.5:8080/x",
      "http://192.168.1.1/",
      "http://172.16.0.1/",
      "http://169.254.169.254/latest/meta-data",
      "http://100.64.0.1/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
    ]) {
      expect(refusal(url), url).toMatch(/not allowed/);
    }
  });

  it("refuses localhost names", () => {
    expect(refusal("http://localhost:3000/hook")).toMatch(/local host/);
    expect(refusal("http://LOCALHOST./hook")).toMatch(/local host/);
    expect(refusal("http://api.localhost/hook")).toMatch(/local host/);
    expect(refusal("http://localhost.example.com/hook")).toBeNull();
  });

  it("allows private networks and localhost when the operator opened them, but never the unspecified address", () => {
    expect(refusal("http://127.0.0.1/", true)).toBeNull();
    expect(refusal("http://10.1.2.3/", true)).toBeNull();
    expect(refusal("http://[::1]:8080/", true)).toBeNull();
    expect(refusal("http://localhost/", true)).toBeNull();
    expect(refusal("http://0.0.0.0/", true)).toMatch(/unspecified/);
  });
});
