import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { envelopeJson, testEnvelope, type WebhookEnvelope } from "./envelope";
import { webhookHeaderList, webhookRequest } from "./send";
import { liveSecrets, secretKey, signature, signatureHeader } from "./signing";

// The standardwebhooks package (the spec's reference library) is the independent implementation.
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

const envelope: WebhookEnvelope = {
  id: "3f1c1a52-7d0e-4a5c-9d55-0a8f5f0e6b11",
  type: "asset.flagged",
  createdAt: Date.parse("2026-01-02T03:04:05.678Z"),
  projectId: "5c6c7310-1111-4222-8333-944455556666",
  data: {
    severity: "high",
    title: "Asset flagged: note.txt",
    description: "Flagged for violence (score 0.97).",
    assetId: "9a0b2c3d-1111-4222-8333-944455556666",
    asset: { id: "9a0b2c3d-1111-4222-8333-944455556666", externalId: null, status: "rejected", flagged: true, moderationAction: "hide" },
    facts: [{ key: "category", value: "violence" }],
  },
};
const event = { ...envelopeJson(envelope), type: envelope.type };

describe("Standard Webhooks signing", () => {
  it("produces signatures the standardwebhooks package verifies", () => {
    const secret = newSecret();
    const now = new Date();
    const { body, headers } = webhookRequest({ secret, previousSecret: null, previousSecretExpiresAt: null }, event, now.getTime());
    expect(headers["webhook-id"]).toBe(event.id);
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body, headers);
    expect(verified).toEqual(JSON.parse(body));
  });

  it("sends the same headers in the hot path's flat list", () => {
    const secret = newSecret();
    const now = Date.now();
    const connector = { secret, previousSecret: newSecret(), previousSecretExpiresAt: new Date(now + 60_000) };
    const { body, headers } = webhookRequest(connector, event, now);
    const list = webhookHeaderList(connector, event.id, body, now);
    expect(Object.fromEntries(Array.from({ length: list.length / 2 }, (_, i) => [list[2 * i], list[2 * i + 1]]))).toEqual(headers);
    expect(new Webhook(connector.previousSecret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("matches the package's own signature byte for byte", () => {
    const secret = newSecret();
    const now = new Date();
    const ts = Math.floor(now.getTime() / 1000);
    expect(signature(secret, "msg_1", ts, '{"a":1}')).toBe(new Webhook(secret).sign("msg_1", now, '{"a":1}'));
  });

  it("fails verification with another secret, a changed body or id", () => {
    const secret = newSecret();
    const { body, headers } = webhookRequest({ secret, previousSecret: null, previousSecretExpiresAt: null }, event);
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "other" })).toThrow();
  });

  it("during rotation signs with both secrets, and each verifies on its own", () => {
    const current = newSecret();
    const previous = newSecret();
    const now = new Date();
    const connector = { secret: current, previousSecret: previous, previousSecretExpiresAt: new Date(now.getTime() + 60_000) };
    const { body, headers } = webhookRequest(connector, event, now.getTime());
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });

  it("drops the previous secret once its grace period is over", () => {
    const now = new Date();
    const base = { secret: "whsec_YQ==", previousSecret: "whsec_Yg==" };
    expect(liveSecrets({ ...base, previousSecretExpiresAt: new Date(now.getTime() + 1) }, now.getTime())).toEqual(["whsec_YQ==", "whsec_Yg=="]);
    expect(liveSecrets({ ...base, previousSecretExpiresAt: now }, now.getTime())).toEqual(["whsec_YQ=="]);
    expect(liveSecrets({ ...base, previousSecretExpiresAt: null }, now.getTime())).toEqual(["whsec_YQ=="]);
    expect(liveSecrets({ secret: "whsec_YQ==", previousSecret: null, previousSecretExpiresAt: new Date(now.getTime() + 1) }, now.getTime())).toEqual(["whsec_YQ=="]);
  });

  it("reads whsec_ secrets and bare base64 alike, and joins several signatures with spaces", () => {
    expect(secretKey("whsec_AQID")).toEqual(Buffer.from([1, 2, 3]));
    expect(secretKey("AQID")).toEqual(Buffer.from([1, 2, 3]));
    const header = signatureHeader(["whsec_AQID", "whsec_BAUG"], "id", 1, "x");
    expect(header).toBe(`${signature("whsec_AQID", "id", 1, "x")} ${signature("whsec_BAUG", "id", 1, "x")}`);
  });
});

describe("webhook envelope", () => {
  it("has a test-message form with the delivery id and no asset", () => {
    const envelope = testEnvelope("d-1", "p-1", "My hook", new Date(5));
    expect(envelope).toMatchObject({ id: "d-1", type: "connector.test", createdAt: 5, projectId: "p-1" });
    expect(envelope.data).toMatchObject({ severity: "low", title: "Test message from Sieve", assetId: null, asset: null, facts: [] });
    expect(envelope.data.description).toContain("My hook");
  });
});
