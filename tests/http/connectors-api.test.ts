import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, expectOk, newKey, newProject, type TestProject } from "./support";
import {
  createWebhook,
  expectConnector,
  expectDelivery,
  expectSecret,
  HOOK_URL,
  seedDeliveries,
  seedEvent,
  SLACK_URL,
} from "./connectors-support";

/**
 * The Connectors API: create, list, read, change, delete, rotate, enable/disable, test, deliveries
 * and replay, with validation, URL policy, permissions and other projects' connectors. The test
 * server has no SMTP settings and does not allow private networks.
 */

let p: TestProject;
let other: TestProject;
let theirs: Record<string, any>;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  theirs = await createWebhook(other.client, other.projectId, { name: "theirs" });
});

const create = (body: unknown, project = p) => project.client.post(`/projects/${project.projectId}/connectors`, body);

describe("create connector", () => {
  it("creates a webhook connector and shows its secret once", async () => {
    const before = Date.now();
    const res = await create({ type: "webhook", name: "Ops hook", url: HOOK_URL, eventTypes: ["asset.flagged", "asset.rejected", "asset.flagged"] });
    const connector = expectConnector(expectOk(res), true);
    expect(connector).toMatchObject({
      projectId: p.projectId,
      type: "webhook",
      name: "Ops hook",
      url: HOOK_URL,
      recipients: [],
      eventTypes: ["asset.flagged", "asset.rejected"],
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
      lastError: null,
      lastSuccessAt: null,
      lastFailureAt: null,
      previousSecretExpiresAt: null,
    });
    expect(connector.createdAt).toBeGreaterThanOrEqual(before - 1000);
    const got = expectConnector(expectOk(await p.client.get(`/connectors/${connector.id}`)));
    const { secret: _secret, ...withoutSecret } = connector;
    expect(got).toEqual(withoutSecret);
  });

  it("creates a Slack connector: the full URL in the create response, masked everywhere else", async () => {
    const connector = expectConnector(expectOk(await create({ type: "slack", name: "#alerts", url: SLACK_URL })), true);
    expect(connector.url).toBe(SLACK_URL);
    expect(connector.eventTypes).toEqual([]);
    const got = expectConnector(expectOk(await p.client.get(`/connectors/${connector.id}`)));
    expect(got.url).toBe("https://hooks.slack.com/services/…");
    const listed = expectOk(await p.client.get(`/projects/${p.projectId}/connectors?pageSize=100`)).items.find((c: any) => c.id === connector.id);
    expect(listed.url).toBe("https://hooks.slack.com/services/…");
    expect(listed.secret).toBeUndefined();
  });

  it("refuses email connectors without SMTP settings with 422 connector/email-not-configured", async () => {
    expectError(await create({ type: "email", name: "mail", recipients: ["ops@example.com"] }), 422, "connector/email-not-configured");
  });

  it("rejects invalid bodies with 400 request/validation-failed naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ type: "webhook", name: "x", url: "not a url" }, "body.url"],
      [{ type: "webhook", name: "x", url: "ftp://example.com/hook" }, "body.url"],
      [{ type: "webhook", name: "x", url: "javascript:alert(1)" }, "body.url"],
      [{ type: "webhook", name: "x", url: "https://user:pass@example.com/hook" }, "body.url"],
      [{ type: "webhook", name: "x", url: `https://example.com/${"a".repeat(2048)}` }, "body.url"],
      [{ type: "slack", name: "x", url: "https://admin@hooks.slack.com/services/x" }, "body.url"],
      [{ type: "webhook", name: "x", url: HOOK_URL, eventTypes: ["asset.nope"] }, "body.eventTypes"],
      [{ type: "webhook", name: "x", url: HOOK_URL, eventTypes: "asset.flagged" }, "body.eventTypes"],
      [{ type: "webhook", name: "", url: HOOK_URL }, "body.name"],
      [{ type: "webhook", name: "  ", url: HOOK_URL }, "body.name"],
      [{ type: "webhook", name: "n".repeat(101), url: HOOK_URL }, "body.name"],
      [{ type: "webhook", name: "a\u0000b", url: HOOK_URL }, "body.name"],
      [{ type: "webhook", url: HOOK_URL }, "body.name"],
      [{ type: "webhook", name: "x" }, "body.url"],
      [{ name: "x", url: HOOK_URL }, "body.type"],
      [{ type: "teams", name: "x", url: HOOK_URL }, "body.type"],
      [{ type: "webhook", name: "x", url: HOOK_URL, secret: "mine" }, "secret"],
      [{ type: "webhook", name: "x", url: HOOK_URL, recipients: ["a@example.com"] }, "recipients"],
      [{ type: "email", name: "x", recipients: [] }, "body.recipients"],
      [{ type: "email", name: "x", recipients: ["not-an-address"] }, "body.recipients"],
      [{ type: "email", name: "x", recipients: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, "body.recipients"],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await create(body), 400, "request/validation-failed");
      expect(error.message, JSON.stringify(body).slice(0, 80)).toContain(field);
    }
  });

  it("refuses private, loopback and link-local address literals and localhost with 422 connector/url-not-allowed", async () => {
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://2130706433/hook",
      "http://10.0.0.8/hook",
      "http://192.168.0.1/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hook",
      "http://[::ffff:10.0.0.1]/hook",
      "http://0.0.0.0/hook",
      "http://localhost:3000/hook",
    ]) {
      const error = expectError(await create({ type: "webhook", name: "x", url }), 422, "connector/url-not-allowed");
      expect(error.message).toContain("not allowed");
      expectError(await create({ type: "slack", name: "x", url }), 422, "connector/url-not-allowed");
    }
  });

  it("is idempotent with an Idempotency-Key: a retry gets the same connector and secret", async () => {
    const headers = { "Idempotency-Key": randomUUID() };
    const body = { type: "webhook", name: "once", url: HOOK_URL };
    const first = await p.client.post(`/projects/${p.projectId}/connectors`, body, headers);
    const again = await p.client.post(`/projects/${p.projectId}/connectors`, body, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await db().connector.count({ where: { projectId: p.projectId, name: "once" } })).toBe(1);
  });

  it("answers other projects with 403 and unknown ones with 404", async () => {
    expectError(await create({ type: "webhook", name: "x", url: HOOK_URL }, { ...p, projectId: other.projectId }), 403, "auth/project-mismatch");
    expectError(await create({ type: "webhook", name: "x", url: HOOK_URL }, { ...p, projectId: randomUUID() }), 404, "project/not-found");
  });
});

describe("permissions", () => {
  it("needs connectors:write to change and connectors:read to read", async () => {
    const connector = await createWebhook(p.client, p.projectId);
    const reader = (await newKey(p.projectId, ["connectors:read"])).client;
    const writer = (await newKey(p.projectId, ["connectors:write"])).client;
    const base = `/connectors/${connector.id}`;
    for (const res of [
      await reader.post(`/projects/${p.projectId}/connectors`, { type: "webhook", name: "x", url: HOOK_URL }),
      await reader.patch(base, { name: "x" }),
      await reader.delete(base),
      await reader.post(`${base}/rotate-secret`),
      await reader.post(`${base}/enable`),
      await reader.post(`${base}/disable`),
      await reader.post(`${base}/test`),
      await reader.post(`${base}/deliveries/${randomUUID()}/replay`),
      await writer.get(`/projects/${p.projectId}/connectors`),
      await writer.get(base),
      await writer.get(`${base}/deliveries`),
      await writer.get(`${base}/deliveries/${randomUUID()}`),
    ]) {
      expectError(res, 403, "auth/insufficient-permissions");
    }
    expectOk(await reader.get(base));
    expectOk(await writer.patch(base, { name: "renamed" }));
  });
});

describe("list connectors", () => {
  it("pages newest first with {items, total, hasMore}", async () => {
    const project = await newProject();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createWebhook(project.client, project.projectId, { name: `c${i}` }));
    const url = `/projects/${project.projectId}/connectors`;
    const page0 = expectOk(await project.client.get(`${url}?pageSize=2`));
    expect(page0).toMatchObject({ total: 5, hasMore: true });
    expect(page0.items.map((c: any) => c.name)).toEqual(["c4", "c3"]);
    page0.items.forEach((c: unknown) => expectConnector(c));
    const page2 = expectOk(await project.client.get(`${url}?pageSize=2&pageIndex=2`));
    expect(page2).toMatchObject({ total: 5, hasMore: false });
    expect(page2.items.map((c: any) => c.name)).toEqual(["c0"]);
    expect(expectOk(await project.client.get(url)).items).toHaveLength(5);
    expectError(await project.client.get(`${url}?pageSize=0`), 400, "request/validation-failed");
    expectError(await project.client.get(`${url}?pageSize=101`), 400, "request/validation-failed");
    expectError(await project.client.get(`${url}?sort=name`), 400, "request/validation-failed");
    expect(expectOk(await other.client.get(`/projects/${other.projectId}/connectors`)).items.map((c: any) => c.id)).toEqual([theirs.id]);
  });
});

describe("get, change and delete", () => {
  it("answers unknown and malformed ids with 404 and another project's connector with 403", async () => {
    expectError(await p.client.get(`/connectors/${randomUUID()}`), 404, "connector/not-found");
    expectError(await p.client.get("/connectors/nope"), 404, "connector/not-found");
    expectError(await p.client.patch("/connectors/nope", { name: "x" }), 404, "connector/not-found");
    const base = `/connectors/${theirs.id}`;
    for (const res of [
      await p.client.get(base),
      await p.client.patch(base, { name: "mine now" }),
      await p.client.delete(base),
      await p.client.post(`${base}/rotate-secret`),
      await p.client.post(`${base}/enable`),
      await p.client.post(`${base}/disable`),
      await p.client.post(`${base}/test`),
      await p.client.get(`${base}/deliveries`),
      await p.client.get(`${base}/deliveries/${randomUUID()}`),
      await p.client.post(`${base}/deliveries/${randomUUID()}/replay`),
    ]) {
      expectError(res, 403, "auth/project-mismatch");
    }
    expect(expectOk(await other.client.get(base))).toMatchObject({ name: "theirs", enabled: true });
  });

  it("changes name, url and event types, with the create rules", async () => {
    const connector = await createWebhook(p.client, p.projectId);
    const base = `/connectors/${connector.id}`;
    const changed = expectConnector(expectOk(await p.client.patch(base, { name: "new name", url: "https://example.invalid/v2", eventTypes: ["asset.failed", "asset.failed"] })));
    expect(changed).toMatchObject({ name: "new name", url: "https://example.invalid/v2", eventTypes: ["asset.failed"], type: "webhook" });
    expect(changed.updatedAt).toBeGreaterThanOrEqual(connector.updatedAt);
    expect(expectOk(await p.client.patch(base, { type: "webhook", eventTypes: [] })).eventTypes).toEqual([]);

    const typeChange = expectError(await p.client.patch(base, { type: "slack", name: "x" }), 400, "request/validation-failed");
    expect(typeChange.message).toContain("body.type");
    expect(expectError(await p.client.patch(base, { type: "slack" }), 400, "request/validation-failed").message).toContain("at least one");
    expect(expectError(await p.client.patch(base, {}), 400, "request/validation-failed").message).toContain("at least one");
    expect(expectError(await p.client.patch(base, { recipients: ["a@example.com"] }), 400, "request/validation-failed").message).toContain("body.recipients");
    expect(expectError(await p.client.patch(base, { url: "ftp://example.com/" }), 400, "request/validation-failed").message).toContain("body.url");
    expect(expectError(await p.client.patch(base, { enabled: false }), 400, "request/validation-failed").message).toContain("enabled");
    expectError(await p.client.patch(base, { eventTypes: ["nope"] }), 400, "request/validation-failed");
    expectError(await p.client.patch(base, { url: "http://192.168.1.10/hook" }), 422, "connector/url-not-allowed");
    expect(expectOk(await p.client.get(base))).toMatchObject({ type: "webhook", url: "https://example.invalid/v2", name: "new name" });
  });

  it("changes an email connector's recipients but never gives it a url", async () => {
    const row = await db().connector.create({
      data: { projectId: p.projectId, type: "email", name: "mail", recipients: ["a@example.com"], secret: "whsec_x" },
    });
    const base = `/connectors/${row.id}`;
    expect(expectConnector(expectOk(await p.client.get(base)))).toMatchObject({ type: "email", url: null, recipients: ["a@example.com"] });
    const changed = expectOk(await p.client.patch(base, { recipients: ["b@example.com", "B@example.com", "c@example.com"] }));
    expect(changed.recipients).toEqual(["b@example.com", "c@example.com"]);
    expect(expectError(await p.client.patch(base, { url: HOOK_URL }), 400, "request/validation-failed").message).toContain("body.url");
  });

  it("masks a changed Slack URL in the answer", async () => {
    const slack = expectOk(await create({ type: "slack", name: "s", url: SLACK_URL }));
    const changed = expectOk(await p.client.patch(`/connectors/${slack.id}`, { url: "https://hooks.slack.com/services/T1/B1/NEW" }));
    expect(changed.url).toBe("https://hooks.slack.com/services/…");
  });

  it("deletes a connector with its deliveries, answering {}", async () => {
    const connector = await createWebhook(p.client, p.projectId);
    const event = await seedEvent(p.projectId);
    await seedDeliveries(connector.id, [{ eventId: event.id, status: "pending" }, { eventId: event.id, status: "failed", attempts: 2 }]);
    const res = await p.client.delete(`/connectors/${connector.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await p.client.get(`/connectors/${connector.id}`), 404, "connector/not-found");
    expectError(await p.client.delete(`/connectors/${connector.id}`), 404, "connector/not-found");
    expect(await db().connectorDelivery.count({ where: { connectorId: connector.id } })).toBe(0);
  });
});

describe("rotate secret", () => {
  it("shows a new secret once and keeps the old one signing for the grace period", async () => {
    const connector = await createWebhook(p.client, p.projectId);
    const before = Date.now();
    const rotated = expectConnector(expectOk(await p.client.post(`/connectors/${connector.id}/rotate-secret`)), true);
    expectSecret(rotated.secret);
    expect(rotated.secret).not.toBe(connector.secret);
    const grace = 24 * 3600 * 1000; // CONNECTOR_SECRET_GRACE_SECONDS default
    expect(rotated.previousSecretExpiresAt).toBeGreaterThanOrEqual(before + grace - 1000);
    expect(rotated.previousSecretExpiresAt).toBeLessThanOrEqual(Date.now() + grace + 1000);
    const got = expectConnector(expectOk(await p.client.get(`/connectors/${connector.id}`)));
    expect(got.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    const row = await db().connector.findUniqueOrThrow({ where: { id: connector.id } });
    expect(row).toMatchObject({ secret: rotated.secret, previousSecret: connector.secret });

    const again = expectOk(await p.client.post(`/connectors/${connector.id}/rotate-secret`));
    const row2 = await db().connector.findUniqueOrThrow({ where: { id: connector.id } });
    expect(row2).toMatchObject({ secret: again.secret, previousSecret: rotated.secret });
  });
});

describe("enable and disable", () => {
  it("turns a connector off naming the key, and on again resetting its failures", async () => {
    const connector = await createWebhook(p.client, p.projectId);
    const base = `/connectors/${connector.id}`;
    const off = expectConnector(expectOk(await p.client.post(`${base}/disable`)));
    expect(off.enabled).toBe(false);
    expect(off.disabledAt).toBeGreaterThan(Date.now() - 60_000);
    expect(off.disabledReason).toMatch(/^Turned off by API key /);
    const offAgain = expectOk(await p.client.post(`${base}/disable`));
    expect(offAgain).toMatchObject({ enabled: false, disabledAt: off.disabledAt, disabledReason: off.disabledReason });

    await db().connector.update({ where: { id: connector.id }, data: { consecutiveFailures: 7, failingSince: new Date(), lastError: "HTTP 500" } });
    const on = expectConnector(expectOk(await p.client.post(`${base}/enable`)));
    expect(on).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null, lastError: "HTTP 500" });
    expect(expectOk(await p.client.post(`${base}/enable`))).toEqual(on);
  });
});

describe("deliveries", () => {
  let connector: Record<string, any>;
  let flagged: { id: string };
  let seeded: { id: string }[];

  beforeAll(async () => {
    connector = await createWebhook(p.client, p.projectId, { name: "deliveries" });
    flagged = await seedEvent(p.projectId, "asset.flagged");
    const rejected = await seedEvent(p.projectId, "asset.rejected");
    seeded = await seedDeliveries(
      connector.id,
      Array.from({ length: 25 }, (_, i) => ({
        eventId: i % 5 === 0 ? flagged.id : rejected.id,
        status: i % 3 === 0 ? ("failed" as const) : ("succeeded" as const),
        attempts: i % 3 === 0 ? 3 : 1,
      })),
    );
  });

  it("lists newest first, paginated, with filters", async () => {
    const base = `/connectors/${connector.id}/deliveries`;
    const page0 = expectOk(await p.client.get(`${base}?pageSize=10`));
    expect(page0).toMatchObject({ total: 25, hasMore: true });
    expect(page0.items.map((d: any) => d.id)).toEqual(seeded.slice(15).reverse().map((d) => d.id));
    page0.items.forEach((d: unknown) => expectDelivery(d));
    const page2 = expectOk(await p.client.get(`${base}?pageSize=10&pageIndex=2`));
    expect(page2).toMatchObject({ total: 25, hasMore: false });
    expect(page2.items).toHaveLength(5);
    expect(expectOk(await p.client.get(`${base}?pageIndex=9`))).toEqual({ items: [], total: 25, hasMore: false });
    const failed = expectOk(await p.client.get(`${base}?status=failed&pageSize=100`));
    expect(failed.total).toBe(9);
    expect(failed.items.every((d: any) => d.status === "failed" && d.attempts === 3)).toBe(true);
    const ofEvent = expectOk(await p.client.get(`${base}?eventId=${flagged.id}&pageSize=100`));
    expect(ofEvent.total).toBe(5);
    expect(ofEvent.items.every((d: any) => d.eventId === flagged.id && d.eventType === "asset.flagged")).toBe(true);
    expectError(await p.client.get(`${base}?status=done`), 400, "request/validation-failed");
    expectError(await p.client.get(`${base}?eventId=nope`), 400, "request/validation-failed");
    expectError(await p.client.get(`/connectors/${randomUUID()}/deliveries`), 404, "connector/not-found");
  });

  it("shows one delivery with its attempts oldest first", async () => {
    const d = expectDelivery(expectOk(await p.client.get(`/connectors/${connector.id}/deliveries/${seeded[0]!.id}`)));
    expect(d).toMatchObject({ connectorId: connector.id, eventId: flagged.id, eventType: "asset.flagged", replayOf: null, status: "failed", attempts: 3 });
    expect(d.log.map((a: any) => a.attempt)).toEqual([1, 2, 3]);
    expect(d.log[0]).toEqual({ attempt: 1, startedAt: expect.any(Number), latencyMs: 10, statusCode: 500, error: "HTTP 500 (attempt 1)", responseExcerpt: "boom" });
    expectError(await p.client.get(`/connectors/${connector.id}/deliveries/${randomUUID()}`), 404, "delivery/not-found");
    expectError(await p.client.get(`/connectors/${connector.id}/deliveries/nope`), 404, "delivery/not-found");
    const elsewhere = await createWebhook(p.client, p.projectId);
    expectError(await p.client.get(`/connectors/${elsewhere.id}/deliveries/${seeded[0]!.id}`), 404, "delivery/not-found");
  });

  it("replays a delivery as a new pending one, and refuses while the connector is off", async () => {
    const base = `/connectors/${connector.id}`;
    const res = await p.client.post(`${base}/deliveries/${seeded[0]!.id}/replay`);
    expect(res.status, res.text).toBe(202);
    const replay = expectDelivery(res.body);
    expect(replay).toMatchObject({ connectorId: connector.id, eventId: flagged.id, eventType: "asset.flagged", replayOf: seeded[0]!.id, status: "pending", attempts: 0, log: [] });
    expect(replay.id).not.toBe(seeded[0]!.id);
    expect(expectOk(await p.client.get(`${base}/deliveries/${replay.id}`)).replayOf).toBe(seeded[0]!.id);
    expect(expectOk(await p.client.get(`${base}/deliveries`)).total).toBe(26);

    expectOk(await p.client.post(`${base}/disable`));
    expectError(await p.client.post(`${base}/deliveries/${seeded[1]!.id}/replay`), 409, "connector/disabled");
    expectOk(await p.client.post(`${base}/enable`));
    expectError(await p.client.post(`${base}/deliveries/${randomUUID()}/replay`), 404, "delivery/not-found");
  });

  it("refuses to replay a test message", async () => {
    const [test] = await seedDeliveries(connector.id, [{ eventId: null, status: "failed", attempts: 1 }]);
    const error = expectError(await p.client.post(`/connectors/${connector.id}/deliveries/${test!.id}/replay`), 400, "request/validation-failed");
    expect(error.message).toContain("test message");
  });
});

describe("test message", () => {
  it("sends one attempt before answering, also for a connector that is off", async () => {
    const connector = await createWebhook(p.client, p.projectId, { name: "tested" });
    expectOk(await p.client.post(`/connectors/${connector.id}/disable`));
    const res = await p.client.post(`/connectors/${connector.id}/test`);
    const delivery = expectDelivery(expectOk(res));
    expect(delivery).toMatchObject({ connectorId: connector.id, eventId: null, eventType: null, replayOf: null });
    expect(["succeeded", "failed"]).toContain(delivery.status);
    // example.invalid never resolves: the one attempt failed, and the log says so.
    expect(delivery.status).toBe("failed");
    expect(delivery.log).toHaveLength(1);
    expect(delivery.log[0].error).toEqual(expect.any(String));
    expect(expectOk(await p.client.get(`/connectors/${connector.id}/deliveries/${delivery.id}`))).toEqual(delivery);
    expectError(await p.client.post(`/connectors/${randomUUID()}/test`), 404, "connector/not-found");
  });
});
