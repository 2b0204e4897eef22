import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { firstDeliveryId } from "@/lib/connectors/delivery/passes";
import { db } from "@/lib/db/client";
import type { ApiClient } from "./support";

/** Helpers of the connector tests (connectors-api.test.ts): creating connectors, seeding deliveries. */

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A host that never resolves (RFC 2606), so deliveries the server attempts fail at once. */
export const HOOK_URL = "https://example.invalid/hook";
export const SLACK_URL = "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX";

export const CONNECTOR_KEYS = [
  "consecutiveFailures",
  "createdAt",
  "disabledAt",
  "disabledReason",
  "enabled",
  "eventTypes",
  "failingSince",
  "id",
  "lastError",
  "lastFailureAt",
  "lastSuccessAt",
  "name",
  "previousSecretExpiresAt",
  "projectId",
  "recipients",
  "type",
  "updatedAt",
  "url",
];

export const DELIVERY_KEYS = [
  "attempts",
  "connectorId",
  "createdAt",
  "eventId",
  "eventType",
  "finishedAt",
  "id",
  "lastError",
  "lastStatusCode",
  "log",
  "nextAttemptAt",
  "replayOf",
  "status",
  "updatedAt",
];

/** Checks the Connector shape (with `secret` exactly when `withSecret`) and returns it. */
export function expectConnector(value: unknown, withSecret = false): Record<string, any> {
  const connector = value as Record<string, any>;
  expect(Object.keys(connector).sort()).toEqual([...CONNECTOR_KEYS, ...(withSecret ? ["secret"] : [])].sort());
  expect(connector.id).toMatch(UUID_RE);
  expect(Number.isInteger(connector.createdAt)).toBe(true);
  expect(Number.isInteger(connector.updatedAt)).toBe(true);
  if (withSecret) expectSecret(connector.secret);
  return connector;
}

/** A Standard Webhooks secret: `whsec_` and base64 of at least 24 bytes. */
export function expectSecret(secret: unknown) {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  const key = Buffer.from((secret as string).slice("whsec_".length), "base64");
  expect(key.length).toBeGreaterThanOrEqual(24);
}

export function expectDelivery(value: unknown): Record<string, any> {
  const delivery = value as Record<string, any>;
  expect(Object.keys(delivery).sort()).toEqual(DELIVERY_KEYS);
  expect(delivery.id).toMatch(UUID_RE);
  return delivery;
}

/** Creates a webhook connector and returns it (the create response, secret included). */
export async function createWebhook(client: ApiClient, projectId: string, extra: Record<string, unknown> = {}) {
  const res = await client.post(`/projects/${projectId}/connectors`, { type: "webhook", name: "hook", url: HOOK_URL, ...extra });
  if (res.status !== 200) throw new Error(`creating a webhook failed: ${res.status} ${res.text}`);
  return expectConnector(res.body, true);
}

/**
 * An event of the project, dated an hour ago: older than every connector, so the dispatcher never
 * turns it into deliveries of its own and the tests own every delivery row they count.
 */
export async function seedEvent(projectId: string, type = "asset.flagged") {
  return db().event.create({
    data: { projectId, type, severity: "high", title: "seeded", facts: [], createdAt: new Date(Date.now() - 3_600_000) },
  });
}

/**
 * Deliveries of a connector with distinct creation times, oldest first; each with `attempts` log
 * rows. As the service writes them: an event's first delivery has the id derived from the event and
 * connector (passes.ts), and its later ones replay it.
 */
export async function seedDeliveries(
  connectorId: string,
  specs: { eventId: string | null; status: "pending" | "succeeded" | "failed" | "cancelled"; attempts?: number }[],
) {
  const base = Date.now() - 600_000;
  const rows = [];
  const firsts = new Map<string, string>();
  for (const [i, spec] of specs.entries()) {
    const attempts = spec.attempts ?? 0;
    const createdAt = new Date(base + i * 1000);
    const replayOf = spec.eventId === null ? null : (firsts.get(spec.eventId) ?? null);
    const id = spec.eventId === null || replayOf !== null ? randomUUID() : firstDeliveryId(spec.eventId, connectorId);
    if (spec.eventId !== null && replayOf === null) firsts.set(spec.eventId, id);
    rows.push(
      await db().connectorDelivery.create({
        data: {
          id,
          connectorId,
          eventId: spec.eventId,
          replayOf,
          status: spec.status,
          attempts,
          createdAt,
          lastStatusCode: attempts > 0 ? 500 : null,
          finishedAt: spec.status === "pending" ? null : createdAt,
          log: {
            create: Array.from({ length: attempts }, (_, n) => ({
              attempt: n + 1,
              startedAt: new Date(createdAt.getTime() + n * 100),
              latencyMs: 10 + n,
              statusCode: 500,
              error: `HTTP 500 (attempt ${n + 1})`,
              responseExcerpt: "boom",
            })),
          },
        },
      }),
    );
  }
  return rows;
}
