import { describe, expect, it } from "vitest";
import { createConnectorBody, listDeliveriesQuery, updateConnectorBody } from "./schemas";

const ok = (body: unknown) => createConnectorBody.safeParse(body).success;
const issues = (body: unknown) => {
  const result = createConnectorBody.safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("createConnectorBody", () => {
  it("accepts the three types", () => {
    expect(ok({ type: "webhook", name: "w", url: "https://example.com/h" })).toBe(true);
    expect(ok({ type: "slack", name: "s", url: "https://hooks.slack.com/services/T/B/X", eventTypes: ["asset.flagged"] })).toBe(true);
    expect(ok({ type: "email", name: "e", recipients: ["a@example.com", "b@example.org"], eventTypes: [] })).toBe(true);
  });

  it("refuses bad names", () => {
    for (const name of ["", "   ", "n".repeat(101), "a\u0000b", 42, null]) {
      expect(issues({ type: "webhook", name, url: "https://example.com/h" }).join(), String(name)).toMatch(/^name:/);
    }
    expect(ok({ type: "webhook", name: "n".repeat(100), url: "https://example.com/h" })).toBe(true);
  });

  it("refuses bad URLs with 400-worthy issues", () => {
    for (const url of ["not a url", "ftp://example.com/", "https://u:p@example.com/", "https://example.com/" + "a".repeat(2048), "https://exa\u0000mple.com/"]) {
      expect(issues({ type: "webhook", name: "w", url }).join(), url.slice(0, 40)).toMatch(/^url:/);
    }
  });

  it("refuses unknown event types, unknown fields, missing fields and an unknown type", () => {
    expect(issues({ type: "webhook", name: "w", url: "https://example.com/h", eventTypes: ["asset.nope"] }).join()).toMatch(/^eventTypes\.0:/);
    expect(ok({ type: "webhook", name: "w", url: "https://example.com/h", secret: "x" })).toBe(false);
    expect(ok({ type: "webhook", name: "w", url: "https://example.com/h", recipients: ["a@example.com"] })).toBe(false);
    expect(ok({ type: "email", name: "e", recipients: ["a@example.com"], url: "https://example.com/h" })).toBe(false);
    expect(ok({ type: "webhook", name: "w" })).toBe(false);
    expect(ok({ name: "w", url: "https://example.com/h" })).toBe(false);
    expect(ok({ type: "teams", name: "w", url: "https://example.com/h" })).toBe(false);
  });

  it("takes 1 to 10 valid email recipients", () => {
    const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`);
    expect(ok({ type: "email", name: "e", recipients: addresses(10) })).toBe(true);
    expect(ok({ type: "email", name: "e", recipients: addresses(11) })).toBe(false);
    expect(ok({ type: "email", name: "e", recipients: [] })).toBe(false);
    expect(ok({ type: "email", name: "e", recipients: ["not-an-address"] })).toBe(false);
    expect(ok({ type: "email", name: "e" })).toBe(false);
  });
});

describe("updateConnectorBody", () => {
  it("takes any of name, url, recipients, eventTypes, and type only alongside them", () => {
    expect(updateConnectorBody.safeParse({ name: "x" }).success).toBe(true);
    expect(updateConnectorBody.safeParse({ eventTypes: [] }).success).toBe(true);
    expect(updateConnectorBody.safeParse({ type: "webhook", name: "x" }).success).toBe(true);
    expect(updateConnectorBody.safeParse({}).success).toBe(false);
    expect(updateConnectorBody.safeParse({ type: "slack" }).success).toBe(false);
    expect(updateConnectorBody.safeParse({ enabled: false }).success).toBe(false);
    expect(updateConnectorBody.safeParse({ url: "ftp://example.com" }).success).toBe(false);
  });
});

describe("listDeliveriesQuery", () => {
  it("pages and filters", () => {
    expect(listDeliveriesQuery.parse({})).toEqual({ pageIndex: 0, pageSize: 20 });
    expect(listDeliveriesQuery.parse({ pageIndex: "2", pageSize: "5", status: "failed" })).toEqual({ pageIndex: 2, pageSize: 5, status: "failed" });
    expect(listDeliveriesQuery.safeParse({ status: "done" }).success).toBe(false);
    expect(listDeliveriesQuery.safeParse({ pageSize: "101" }).success).toBe(false);
    expect(listDeliveriesQuery.safeParse({ eventId: "nope" }).success).toBe(false);
  });
});
