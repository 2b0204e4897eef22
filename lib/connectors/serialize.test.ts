import { describe, expect, it } from "vitest";
import type { Connector as ConnectorRow } from "@/lib/db/generated/client";
import { maskSlackUrl, serializeConnector, serializeDelivery, type DeliveryRow } from "./serialize";

const at = (ms: number) => new Date(ms);

function row(overrides: Partial<ConnectorRow> = {}): ConnectorRow {
  return {
    id: "6f1d7a8e-0000-4000-8000-000000000001",
    projectId: "6f1d7a8e-0000-4000-8000-000000000002",
    type: "webhook",
    name: "hook",
    url: "https://example.com/hook?token=abc",
    recipients: [],
    eventTypes: [],
    secret: "whsec_current",
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledAt: null,
    disabledReason: null,
    consecutiveFailures: 0,
    failingSince: null,
    lastError: null,
    lastSuccessAt: null,
    lastFailureAt: null,
    createdAt: at(1_000),
    updatedAt: at(2_000),
    ...overrides,
  };
}

describe("maskSlackUrl", () => {
  it("keeps scheme, host and the first path segment", () => {
    expect(maskSlackUrl("https://hooks.slack.com/services/T000/B000/XXXXXXXX")).toBe("https://hooks.slack.com/services/…");
    expect(maskSlackUrl("https://hooks.slack.com/workflows/T1/A2/3/abc?x=1#y")).toBe("https://hooks.slack.com/workflows/…");
    expect(maskSlackUrl("http://chat.example:8080/hook")).toBe("http://chat.example:8080/hook/…");
    expect(maskSlackUrl("https://chat.example/?token=secret")).toBe("https://chat.example/…");
    expect(maskSlackUrl("nonsense")).toBe("…");
  });
});

describe("serializeConnector", () => {
  it("shows every field in ms, without the secret unless asked", () => {
    const shown = serializeConnector(row());
    expect(Object.keys(shown).sort()).toEqual(
      [
        "id", "projectId", "type", "name", "url", "recipients", "eventTypes", "enabled", "disabledAt", "disabledReason",
        "consecutiveFailures", "failingSince", "lastError", "lastSuccessAt", "lastFailureAt", "previousSecretExpiresAt",
        "createdAt", "updatedAt",
      ].sort(),
    );
    expect(shown).toMatchObject({ url: "https://example.com/hook?token=abc", createdAt: 1_000, updatedAt: 2_000, disabledAt: null });
    expect(serializeConnector(row(), { withSecret: true }).secret).toBe("whsec_current");
  });

  it("masks a Slack URL unless the full URL is asked for (create only)", () => {
    const slack = row({ type: "slack", url: "https://hooks.slack.com/services/T/B/secret" });
    expect(serializeConnector(slack).url).toBe("https://hooks.slack.com/services/…");
    expect(serializeConnector(slack, { withSecret: true }).url).toBe("https://hooks.slack.com/services/…");
    expect(serializeConnector(slack, { fullUrl: true }).url).toBe("https://hooks.slack.com/services/T/B/secret");
  });

  it("shows recipients only for email and url null for email", () => {
    const email = row({ type: "email", url: null, recipients: ["a@example.com"] });
    expect(serializeConnector(email)).toMatchObject({ url: null, recipients: ["a@example.com"] });
    expect(serializeConnector(row({ recipients: ["stray@example.com"] })).recipients).toEqual([]);
  });

  it("shows when the previous secret stops signing, and null once it has", () => {
    const rotated = row({ previousSecret: "whsec_old", previousSecretExpiresAt: at(10_000) });
    expect(serializeConnector(rotated, { now: 5_000 }).previousSecretExpiresAt).toBe(10_000);
    expect(serializeConnector(rotated, { now: 10_000 }).previousSecretExpiresAt).toBeNull();
    expect(serializeConnector(row({ previousSecretExpiresAt: at(10_000) }), { now: 5_000 }).previousSecretExpiresAt).toBeNull();
  });
});

describe("serializeDelivery", () => {
  it("shows the event type (null for a test) and the attempts oldest first, in ms", () => {
    const delivery: DeliveryRow = {
      id: "d1",
      connectorId: "c1",
      eventId: null,
      replayOf: null,
      legacyRandomId: false,
      status: "failed",
      queuedAt: null,
      attempts: 1,
      nextAttemptAt: null,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      createdAt: at(1),
      updatedAt: at(2),
      finishedAt: at(3),
      firstStartedAt: null,
      firstLatencyMs: null,
      firstResponseExcerpt: null,
      event: null,
      log: [{ id: "a1", deliveryId: "d1", attempt: 1, startedAt: at(1), latencyMs: 12, statusCode: 500, error: "HTTP 500", responseExcerpt: "oops" }],
    };
    expect(serializeDelivery(delivery)).toEqual({
      id: "d1",
      connectorId: "c1",
      eventId: null,
      eventType: null,
      replayOf: null,
      status: "failed",
      attempts: 1,
      nextAttemptAt: null,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      createdAt: 1,
      updatedAt: 2,
      finishedAt: 3,
      log: [{ attempt: 1, startedAt: 1, latencyMs: 12, statusCode: 500, error: "HTTP 500", responseExcerpt: "oops" }],
    });
    expect(serializeDelivery({ ...delivery, eventId: "e1", event: { type: "asset.flagged" } }).eventType).toBe("asset.flagged");
  });

  it("lists a first attempt kept in the delivery's row as attempt 1, before the others", () => {
    const delivery = serializeDelivery({
      id: "d2",
      connectorId: "c1",
      eventId: "e1",
      replayOf: null,
      legacyRandomId: false,
      status: "succeeded",
      queuedAt: null,
      attempts: 1,
      nextAttemptAt: null,
      lastStatusCode: 204,
      lastError: null,
      createdAt: at(1),
      updatedAt: at(2),
      finishedAt: at(2),
      firstStartedAt: at(1),
      firstLatencyMs: 7,
      firstResponseExcerpt: "thanks",
      event: { type: "asset.uploaded" },
      log: [],
    });
    expect(delivery.log).toEqual([{ attempt: 1, startedAt: 1, latencyMs: 7, statusCode: 204, error: null, responseExcerpt: "thanks" }]);
  });
});
