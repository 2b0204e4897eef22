import { describe, expect, it } from "vitest";
import type { WebhookEnvelope } from "./envelope";
import { emailContent, slackMessage } from "./render";

const envelope = (over: Partial<WebhookEnvelope["data"]> = {}): WebhookEnvelope => ({
  id: "ev-1",
  type: "asset.flagged",
  createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
  projectId: "proj-1",
  data: {
    severity: "high",
    title: "Asset flagged: <b>note</b>.txt",
    description: "Flagged for violence & threats.",
    assetId: "asset-1",
    asset: null,
    facts: [
      { key: "category", value: "violence" },
      { key: "labels", value: ["a", "b"] },
      { key: "external-id", value: null },
      { key: "report", value: "open", url: "https://example.com/r?a=1&b=2" },
    ],
    ...over,
  },
});

describe("Slack message", () => {
  it("has a fallback text and blocks with the severity marker, title, description, facts and ids", () => {
    const message = slackMessage(envelope());
    expect(message.text).toBe(":red_circle: [high] Asset flagged: &lt;b&gt;note&lt;/b&gt;.txt — Flagged for violence &amp; threats.");
    const [header, description, facts, context] = message.blocks as any[];
    expect(header).toEqual({ type: "header", text: { type: "plain_text", text: ":red_circle: Asset flagged: <b>note</b>.txt", emoji: true } });
    expect(description.text.text).toBe("Flagged for violence &amp; threats.");
    expect(facts.text.text.split("\n")).toEqual([
      "• *category*: violence",
      "• *labels*: a, b",
      "• *external-id*: none",
      "• *report*: <https://example.com/r?a=1&b=2|open>",
    ]);
    expect(context.elements[0].text).toContain("asset `asset-1`");
    expect(context.elements[0].text).toContain("event `ev-1`");
    expect(context.elements[0].text).toContain("*High severity*");
  });

  it("marks low severity differently, leaves out empty parts and clips long titles", () => {
    const message = slackMessage(envelope({ severity: "low", description: null, facts: [], assetId: null, title: "x".repeat(500) }));
    expect(message.text.startsWith(":large_blue_circle: [low] ")).toBe(true);
    expect(message.blocks.map((b) => b.type)).toEqual(["header", "context"]);
    expect(((message.blocks[0] as any).text.text as string).length).toBeLessThanOrEqual(150);
    expect((message.blocks[1] as any).elements[0].text).not.toContain("asset `");
  });
});

describe("email", () => {
  it("has a subject marking high severity, a text and an escaped HTML body, and the event id header", () => {
    const mail = emailContent(envelope());
    expect(mail.subject).toBe("[Sieve] [High severity] Asset flagged: <b>note</b>.txt");
    expect(mail.headers["X-Sieve-Event-Id"]).toBe("ev-1");
    expect(mail.text).toContain("Flagged for violence & threats.");
    expect(mail.text).toContain("- labels: a, b");
    expect(mail.text).toContain("Project: proj-1");
    expect(mail.text).toContain("Event: asset.flagged (ev-1)");
    expect(mail.text).toContain("Time: 2026-01-02T03:04:05.000Z");
    expect(mail.html).toContain("Asset flagged: &lt;b&gt;note&lt;/b&gt;.txt");
    expect(mail.html).not.toContain("<b>note</b>");
    expect(mail.html).toContain("<li><strong>category</strong>: violence</li>");
  });

  it("keeps the subject on one line and unmarked for low severity", () => {
    const mail = emailContent(envelope({ severity: "low", title: "line one\r\nBcc: someone@example.com" }));
    expect(mail.subject).toBe("[Sieve] line one Bcc: someone@example.com");
  });
});
