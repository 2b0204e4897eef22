import { describe, expect, it } from "vitest";
import {
  connectorRow,
  createConnectorRow,
  deliveriesOf,
  deliveryServer,
  feedCursor,
  feedEvents,
  newProject,
  settledDeliveries,
  sleep,
  uploadText,
  waitFor,
  type Project,
} from "./webhooks-support";

/**
 * Failed deliveries: the schedule runs out, the connector is turned off after
 * CONNECTOR_DISABLE_AFTER_FAILURES failures in a row (5 here; CONNECTOR_DISABLE_AFTER_FAILING_SECONDS
 * is 0), `connector.failing` is recorded once, 410 turns a connector off at once, and timeouts and
 * redirects are failures. A server of this file's own: 1 + 3 attempts 200 ms apart, 1 s timeout.
 */
const env = deliveryServer();

/** The project's connector.failing events after `cursor`, once `count` are there (and a moment more). */
async function failingEvents(project: Project, cursor: string, count: number) {
  await feedEvents(project, cursor, (events) => events.filter((e) => e.type === "connector.failing").length >= count);
  await sleep(500); // a second one would be recorded by now
  return (await feedEvents(project, cursor, () => true)).filter((e) => e.type === "connector.failing");
}

const FACT_KEYS = ["connector-id", "connector-name", "connector-type", "consecutive-failures", "last-error"];

describe("failing deliveries", () => {
  it("a receiver that always fails: the delivery fails after the schedule, then the connector is turned off once", { timeout: 60_000 }, async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    hook.respond = () => ({ status: 500, body: "boom" });
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), name: "Flaky", eventTypes: ["asset.uploaded"] });
    const cursor = await feedCursor(project);

    // One event: four attempts (at once, then three retries 200 ms apart), then `failed`.
    await uploadText(project, "first");
    const [first] = await settledDeliveries(connector.id, 1);
    expect(first).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: 500, lastError: "HTTP 500", nextAttemptAt: null });
    expect(first!.log.map((a) => [a.attempt, a.statusCode, a.error, a.responseExcerpt])).toEqual(
      [1, 2, 3, 4].map((n) => [n, 500, "HTTP 500", "boom"]),
    );
    for (let i = 1; i < 4; i++) {
      expect(first!.log[i]!.startedAt.getTime() - first!.log[i - 1]!.startedAt.getTime()).toBeGreaterThanOrEqual(190);
    }
    let row = await connectorRow(connector.id);
    expect(row).toMatchObject({ enabled: true, consecutiveFailures: 4, lastError: "HTTP 500", disabledAt: null });
    expect(row.failingSince).not.toBeNull();
    expect(row.lastFailureAt).not.toBeNull();

    // The fifth failure in a row turns it off: that delivery ends failed after one attempt.
    await uploadText(project, "second");
    const deliveries = await settledDeliveries(connector.id, 2);
    expect(deliveries[1]).toMatchObject({ status: "failed", attempts: 1 });
    row = await connectorRow(connector.id);
    expect(row).toMatchObject({ enabled: false, consecutiveFailures: 5 });
    expect(row.disabledAt).not.toBeNull();
    expect(row.disabledReason).toMatch(/5 delivery attempts in a row failed/);
    expect(hook.requests).toHaveLength(5);

    const failing = await failingEvents(project, cursor, 1);
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({
      type: "connector.failing",
      severity: "high",
      title: 'Connector "Flaky" was turned off',
      userId: null,
      assetId: null,
      asset: null,
    });
    expect(failing[0].description).toMatch(/5 delivery attempts in a row failed/);
    expect(failing[0].facts).toEqual([
      { key: "connector-id", value: connector.id },
      { key: "connector-name", value: "Flaky" },
      { key: "connector-type", value: "webhook" },
      { key: "consecutive-failures", value: 5 },
      { key: "last-error", value: "HTTP 500" },
    ]);

    // Off: new events make no deliveries.
    await uploadText(project, "third");
    await sleep(1000);
    expect(await deliveriesOf(connector.id)).toHaveLength(2);
    expect(hook.requests).toHaveLength(5);
  });

  it("concurrent failing deliveries count every failure and record connector.failing once", { timeout: 60_000 }, async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    // Four uploads, four deliveries (asset.uploaded only: an event recorded after the connector is
    // turned off gets no delivery). Their first attempts are answered together, once all four have
    // arrived, so every delivery exists before a failure is recorded; then up to 16 attempts race
    // for the 5 failures that turn the connector off.
    const firstRequests = new Set<string>();
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    hook.respond = (request) => {
      firstRequests.add(request.headers["webhook-id"]!);
      if (firstRequests.size >= 4) allArrived();
      return arrived.then(() => 502);
    };
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), name: "Down", eventTypes: ["asset.uploaded"] });
    const cursor = await feedCursor(project);
    await Promise.all(["one", "two", "three", "four"].map((text) => uploadText(project, text)));
    await settledDeliveries(connector.id, 4);
    await sleep(1500); // an attempt in flight when the connector was turned off is still recorded (1 s timeout)
    const deliveries = await deliveriesOf(connector.id);
    const attempts = deliveries.reduce((sum, d) => sum + d.log.length, 0);
    const row = await connectorRow(connector.id);
    expect(row.enabled).toBe(false);
    expect(row.consecutiveFailures).toBe(attempts); // every recorded failure counted once
    expect(hook.requests).toHaveLength(attempts);
    expect(deliveries.every((d) => d.status === "failed" || d.status === "cancelled")).toBe(true);
    const failing = await failingEvents(project, cursor, 1);
    expect(failing).toHaveLength(1);
    expect(failing[0].facts.map((f: { key: string }) => f.key)).toEqual(FACT_KEYS);
    expect(failing[0].facts[3].value).toBe(5);
    expect(failing[0].facts[4].value).toBe("HTTP 502");
  });

  it("HTTP 410 turns the connector off at once", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    hook.respond = () => 410;
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), name: "Gone", eventTypes: ["asset.uploaded"] });
    const cursor = await feedCursor(project);
    await uploadText(project, "gone");
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 410 });
    expect(delivery!.lastError).toMatch(/410 Gone/);
    const row = await connectorRow(connector.id);
    expect(row).toMatchObject({ enabled: false, consecutiveFailures: 1 });
    expect(row.disabledReason).toMatch(/410 Gone/);
    const failing = await failingEvents(project, cursor, 1);
    expect(failing).toHaveLength(1);
    expect(failing[0].facts.map((f: { key: string }) => f.key)).toEqual(FACT_KEYS);
    expect(failing[0].facts[3].value).toBe(1);
    expect(hook.requests).toHaveLength(1);
  });

  it("a receiver that never answers fails each attempt at the timeout", { timeout: 30_000 }, async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    hook.respond = (_r, index) => (index === 0 ? "hang" : 204);
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    await uploadText(project, "slow");
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 204 });
    const [timedOut] = delivery!.log;
    expect(timedOut).toMatchObject({ attempt: 1, statusCode: null, responseExcerpt: null });
    expect(timedOut!.error).toMatch(/timed out after 1000 ms/);
    expect(timedOut!.latencyMs).toBeGreaterThanOrEqual(950);
    expect(timedOut!.latencyMs).toBeLessThan(5000);
  });

  it("a redirect is a failed attempt with its status; the target is never requested", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    hook.respond = (r) => (r.path === "/hook" ? { status: 302, headers: { location: "/elsewhere" } } : 200);
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    await uploadText(project, "redirected");
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: 302 });
    expect(delivery!.lastError).toBe("HTTP 302: redirects are not followed (Location: /elsewhere)");
    expect(hook.requests.map((r) => r.path)).toEqual(["/hook", "/hook", "/hook", "/hook"]);
  });

  it("a connection refused is a failure with the reason", async () => {
    const project = await newProject(env.server.baseUrl);
    const hook = await env.receiver();
    await hook.down();
    const connector = await createConnectorRow(project.projectId, { url: hook.url(), eventTypes: ["asset.uploaded"] });
    await uploadText(project, "nobody home");
    const [delivery] = await settledDeliveries(connector.id, 1);
    expect(delivery).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: null });
    expect(delivery!.lastError).toMatch(/ECONNREFUSED/);
    await waitFor(async () => (await connectorRow(connector.id)).consecutiveFailures === 4, "four failures counted");
  });
});
