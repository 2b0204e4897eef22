import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  connectorRow,
  createConnector,
  createConnectorRow,
  deliveriesOf,
  deliveryServer,
  feedCursor,
  feedEvents,
  newProject,
  newSecret,
  settledDeliveries,
  uploadText,
  waitFor,
  type ReceivedRequest,
} from "./webhooks-support";

/**
 * Webhook delivery (issue #10, requirements 4 and 5) against a real server of this file's own (short
 * retry schedule, loopback receivers allowed, a local SMTP server). Every request a receiver gets is
 * verified with the standardwebhooks package. Failures, restarts and SSRF: webhooks-failures,
 * webhooks-restart and webhooks-ssrf.
 */
const env = deliveryServer();

const FLAGGED = "I will hurt you";

describe("webhook deliveries", () => {
  it("delivers every event of an upload as a signed envelope whose id is the feed's event id", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    const connector = await createConnector(project, { url: hook.url(), name: "All events" });
    hook.secrets = [connector.secret];
    const cursor = await feedCursor(project);
    const assetId = await uploadText(project, FLAGGED);

    const feed = await feedEvents(project, cursor, (events) => events.some((e) => e.type === "asset.flagged"));
    expect(feed.map((e) => e.type).sort()).toEqual(["asset.classified", "asset.flagged", "asset.uploaded"]);
    await waitFor(() => feed.every((e) => hook.withId(e.id).length > 0), "every feed event at the receiver");
    expect(new Set(hook.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set(feed.map((e) => e.id)));

    for (const event of feed) {
      const [request, ...again] = hook.withId(event.id);
      expect(again).toEqual([]);
      const r = request as ReceivedRequest;
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/hook");
      expect(r.verifiedWith).toEqual([connector.secret]);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toBe("Sieve-Webhooks/1.0");
      expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(Object.keys(r.json)).toEqual(["id", "type", "createdAt", "projectId", "data"]);
      expect(Object.keys(r.json.data)).toEqual(["severity", "title", "description", "assetId", "asset", "facts"]);
      expect(r.json).toEqual({
        id: event.id,
        type: event.type,
        createdAt: event.createdAt,
        projectId: project.projectId,
        data: {
          severity: event.severity,
          title: event.title,
          description: event.description,
          assetId,
          asset: event.asset,
          facts: event.facts,
        },
      });
    }
    const deliveries = await settledDeliveries(connector.id, 3);
    expect(deliveries.map((d) => d.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    for (const d of deliveries) {
      expect(d.attempts).toBe(1);
      expect(d.lastStatusCode).toBe(200);
      expect(d.finishedAt).not.toBeNull();
      expect(d.log).toHaveLength(1);
      expect(d.log[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null, responseExcerpt: "answer 200" });
      expect(d.log[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(await connectorRow(connector.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, enabled: true });
    expect((await connectorRow(connector.id)).lastSuccessAt).not.toBeNull();
  });

  it("delivers only the subscribed event types", async () => {
    const project = await newProject(env.server.baseUrl);
    const all = await env.receiver();
    const flaggedOnly = await env.receiver();
    const everything = await createConnector(project, { url: all.url(), name: "Everything" });
    const filtered = await createConnector(project, { url: flaggedOnly.url(), name: "Flags", eventTypes: ["asset.flagged"] });
    flaggedOnly.secrets = [filtered.secret];
    await uploadText(project, FLAGGED);
    await uploadText(project, "A calm note about the weather");
    // The dispatcher creates both connectors' deliveries of an event in one transaction.
    await settledDeliveries(everything.id, 5);
    const deliveries = await settledDeliveries(filtered.id, 1);
    expect(deliveries).toHaveLength(1);
    await waitFor(() => flaggedOnly.requests.length === 1, "the flagged event");
    expect(flaggedOnly.requests[0]!.json.type).toBe("asset.flagged");
    expect(flaggedOnly.requests[0]!.verifiedWith).toEqual([filtered.secret]);
    expect(all.requests.map((r) => r.json.type).sort()).toEqual([
      "asset.classified",
      "asset.classified",
      "asset.flagged",
      "asset.uploaded",
      "asset.uploaded",
    ]);
  });

  it("retries a failed attempt on the schedule, with the same webhook-id and body, and logs every attempt", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    hook.respond = (_request, index) => (index === 0 ? { status: 500, body: "database is down" } : 200);
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    hook.secrets = [connector.secret];
    await uploadText(project, "retry me");
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200, lastError: null });
    expect(delivery!.log.map((a) => [a.attempt, a.statusCode, a.error, a.responseExcerpt])).toEqual([
      [1, 500, "HTTP 500", "database is down"],
      [2, 200, null, "answer 200"],
    ]);
    expect(delivery!.log[1]!.startedAt.getTime() - delivery!.log[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(190);
    const [first, second] = hook.requests;
    expect(hook.requests).toHaveLength(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(first!.verifiedWith).toEqual([connector.secret]);
    expect(second!.verifiedWith).toEqual([connector.secret]);
    // The success ended the failure run.
    expect(await connectorRow(connector.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, enabled: true, lastError: "HTTP 500" });
  });

  it("signs with the old and the new secret during the grace period after a rotation, then only the new", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    const connector = await createConnector(project, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    const oldSecret = connector.secret;
    const rotated = await project.api.post(`/connectors/${connector.id}/rotate-secret`);
    let newSecret_: string;
    if (rotated.status !== 404 || rotated.body?.code !== "request/route-not-found") {
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      newSecret_ = rotated.body.secret;
    } else {
      // The rotation endpoint is not there: rotate in the database as it would.
      const { db } = await import("@/lib/db/client");
      newSecret_ = newSecret();
      await db().connector.update({
        where: { id: connector.id },
        data: { secret: newSecret_, previousSecret: oldSecret, previousSecretExpiresAt: new Date(Date.now() + 3_600_000) },
      });
    }
    expect(newSecret_).not.toBe(oldSecret);
    hook.secrets = [oldSecret, newSecret_];
    await uploadText(project, "during the grace period");
    await waitFor(() => hook.requests.length === 1, "the delivery during grace");
    expect(hook.requests[0]!.verifiedWith).toEqual([oldSecret, newSecret_]);
    expect(hook.requests[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    // A receiver holding only one of them verifies too (the library checks each signature).
    expect(() => new Webhook(oldSecret).verify(hook.requests[0]!.body, hook.requests[0]!.headers)).not.toThrow();

    const { db } = await import("@/lib/db/client");
    await db().connector.update({ where: { id: connector.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1000) } });
    await uploadText(project, "after the grace period");
    await waitFor(() => hook.requests.length === 2, "the delivery after grace");
    expect(hook.requests[1]!.verifiedWith).toEqual([newSecret_]);
    expect(hook.requests[1]!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
  });

  it("a replay delivers the same webhook-id again as a new delivery", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    const connector = await createConnector(project, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    hook.secrets = [connector.secret];
    await uploadText(project, "replay me");
    const [original] = await settledDeliveries(connector.id, 1);
    await waitFor(() => hook.requests.length === 1, "the first delivery");

    const replay = await project.api.post(`/connectors/${connector.id}/deliveries/${original!.id}/replay`);
    if (replay.status === 404 && replay.body?.code === "request/route-not-found") {
      // The replay endpoint is not there: queue a replay as it would.
      const { db } = await import("@/lib/db/client");
      const { prismaRunner } = await import("@/lib/db/sql");
      const { enqueueDeliveries } = await import("@/lib/connectors/delivery-jobs");
      await db().$transaction(async (tx) => {
        const row = await tx.connectorDelivery.create({ data: { connectorId: connector.id, eventId: original!.eventId, replayOf: original!.id } });
        await enqueueDeliveries(prismaRunner(tx), [{ deliveryId: row.id, connectorId: connector.id }]);
      });
    }
    else {
      expect([200, 202], JSON.stringify(replay.body)).toContain(replay.status);
      expect(replay.body).toMatchObject({ replayOf: original!.id, eventId: original!.eventId });
    }
    await waitFor(() => hook.requests.length === 2, "the replayed delivery");
    expect(hook.requests[1]!.headers["webhook-id"]).toBe(original!.eventId);
    expect(hook.requests[1]!.body).toBe(hook.requests[0]!.body);
    expect(hook.requests[1]!.verifiedWith).toEqual([connector.secret]);
    const deliveries = await settledDeliveries(connector.id, 2);
    expect(deliveries.map((d) => [d.eventId, d.replayOf, d.status])).toEqual([
      [original!.eventId, null, "succeeded"],
      [original!.eventId, original!.id, "succeeded"],
    ]);
  });

  it("sends a test message: one attempt now, logged, a connector.test envelope, failure counters untouched", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    const connector = await createConnector(project, { url: hook.url(), name: "Tested" });
    hook.secrets = [connector.secret];
    const ok = await project.api.post(`/connectors/${connector.id}/test`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ eventId: null, status: "succeeded", attempts: 1 });
    expect(hook.requests).toHaveLength(1);
    const r = hook.requests[0]!;
    expect(r.verifiedWith).toEqual([connector.secret]);
    expect(r.headers["webhook-id"]).toBe(ok.body.id);
    expect(r.json).toMatchObject({
      id: ok.body.id,
      type: "connector.test",
      projectId: project.projectId,
      data: { severity: "low", title: "Test message from Sieve", assetId: null, asset: null, facts: [] },
    });

    hook.respond = () => 503;
    const failed = await project.api.post(`/connectors/${connector.id}/test`);
    expect(failed.body).toMatchObject({ eventId: null, status: "failed", attempts: 1, lastStatusCode: 503 });
    const rows = await deliveriesOf(connector.id);
    expect(rows.map((d) => [d.eventId, d.status, d.log.map((a) => a.statusCode)])).toEqual([
      [null, "succeeded", [200]],
      [null, "failed", [503]],
    ]);
    expect(await connectorRow(connector.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, enabled: true });
  });
});

describe("Slack and email connectors", () => {
  it("posts a readable Slack message", async () => {
    const project = await newProject(env.server.baseUrl);
    const slack = await env.receiver();
    const connector = await createConnector(project, { type: "slack", url: slack.url("/services/T000/B000/XXXX"), eventTypes: ["asset.flagged"] });
    const assetId = await uploadText(project, FLAGGED);
    await waitFor(() => slack.requests.length === 1, "the Slack message");
    const message = slack.requests[0]!;
    expect(message.path).toBe("/services/T000/B000/XXXX");
    expect(message.headers["content-type"]).toBe("application/json");
    expect(message.json.text).toMatch(/^:red_circle: \[high\] /);
    const blocks = message.json.blocks as any[];
    expect(blocks[0]).toMatchObject({ type: "header", text: { type: "plain_text" } });
    expect(blocks[0].text.text).toContain(":red_circle:");
    const all = JSON.stringify(blocks);
    expect(all).toContain(`asset \`${assetId}\``);
    expect(all).toMatch(/• \*[a-z-]+\*: /); // facts as a list
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "succeeded", lastStatusCode: 200 });
  });

  it("sends an email the SMTP server accepts, with the subject and the event id", async () => {
    const project = await newProject(env.server.baseUrl);
    const connector = await createConnector(project, { type: "email", recipients: ["ops@example.com", "oncall@example.com"], eventTypes: ["asset.flagged"] });
    const cursor = await feedCursor(project);
    await uploadText(project, FLAGGED);
    const [flagged] = await feedEvents(project, cursor, (events) => events.some((e) => e.type === "asset.flagged")).then((events) =>
      events.filter((e) => e.type === "asset.flagged"),
    );
    const mail = await waitFor(() => env.smtp.mails.find((m) => m.raw.includes(flagged.id)), "the email");
    expect(mail.from).toBe("alerts@sieve.test");
    expect(mail.to).toEqual(["ops@example.com", "oncall@example.com"]);
    const subject = /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? "";
    expect(subject).toContain("[Sieve] [High severity] ");
    expect(mail.raw).toMatch(new RegExp(`^X-Sieve-Event-Id: ${flagged.id}\\r?$`, "mi")); // header names are case-insensitive
    expect(mail.raw).toContain(project.projectId);
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "succeeded", lastStatusCode: null, lastError: null });
    expect(delivery!.log[0]!.responseExcerpt).toMatch(/^250/);
  });
});

describe("concurrency", () => {
  it("50 events to 2 connectors: each connector receives each event exactly once", { timeout: 120_000 }, async () => {
    const project = await newProject(env.server.baseUrl);
    const [a, b] = [await env.receiver(), await env.receiver()];
    const connectors = [
      await createConnector(project, { url: a.url(), eventTypes: ["asset.uploaded"], name: "A" }),
      await createConnector(project, { url: b.url(), eventTypes: ["asset.uploaded"], name: "B" }),
    ];
    a.secrets = [connectors[0]!.secret];
    b.secrets = [connectors[1]!.secret];
    const cursor = await feedCursor(project);
    const ids: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => uploadText(project, `note ${batch * 10 + i}`, true)))));
    }
    const uploaded = (await feedEvents(project, cursor, (events) => events.filter((e) => e.type === "asset.uploaded").length >= 50)).filter(
      (e) => e.type === "asset.uploaded",
    );
    expect(uploaded).toHaveLength(50);
    for (const [hook, connector] of [
      [a, connectors[0]!],
      [b, connectors[1]!],
    ] as const) {
      const deliveries = await settledDeliveries(connector.id, 50, 90_000);
      expect(deliveries.filter((d) => d.status === "succeeded")).toHaveLength(50);
      await waitFor(() => hook.requests.length >= 50, "50 requests", 30_000);
      const received = hook.requests.map((r) => r.headers["webhook-id"]).sort();
      expect(received).toEqual(uploaded.map((e) => e.id).sort());
      expect(hook.requests.every((r) => r.verifiedWith.length === 1)).toBe(true);
    }
    expect(new Set(uploaded.map((e) => e.assetId))).toEqual(new Set(ids));
  });
});
