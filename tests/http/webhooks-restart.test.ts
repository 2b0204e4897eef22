import { expect, it } from "vitest";
import {
  createConnector,
  deliveriesOf,
  deliveryServer,
  feedCursor,
  feedEvents,
  newProject,
  settledDeliveries,
  uploadText,
  waitFor,
} from "./webhooks-support";

/**
 * A delivery survives a crash: the receiver is down, an event happens, the first attempt fails, the
 * server is SIGKILLed while the delivery waits for its next attempt, the receiver comes back, a new
 * server process starts on the same database, and the event is delivered (once, with its event id).
 */
// Attempts 3 s apart: time to kill the server between the first and the second.
const env = deliveryServer({ CONNECTOR_RETRY_SCHEDULE: "3s,3s,3s,3s,3s", SIEVE_EXECUTOR_LEASE_MS: "2000" });

it("a delivery waiting for its retry is delivered after a server restart", { timeout: 240_000 }, async () => {
  const project = await newProject(env.server.baseUrl);
  const hook = await env.receiver();
  const connector = await createConnector(project, { url: hook.url(), eventTypes: ["asset.uploaded"] });
  hook.secrets = [connector.secret];
  await hook.down();

  const cursor = await feedCursor(project);
  await uploadText(project, "delivered after a crash");
  const [event] = await feedEvents(project, cursor, (events) => events.some((e) => e.type === "asset.uploaded"));
  const [failed] = await waitFor(async () => {
    const rows = await deliveriesOf(connector.id);
    return rows[0]?.log.length === 1 ? rows : undefined;
  }, "the first (failed) attempt");
  expect(failed).toMatchObject({ status: "pending", attempts: 1 });
  expect(failed!.log[0]!.error).toMatch(/ECONNREFUSED/);

  await env.server.kill();
  await hook.up();
  await env.server.restart();

  const [delivered] = await settledDeliveries(connector.id, 1, 60_000);
  expect(delivered).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200 });
  expect(delivered!.log.map((a) => a.attempt)).toEqual([1, 2]);
  expect(hook.requests).toHaveLength(1);
  expect(hook.requests[0]!.headers["webhook-id"]).toBe(event.id);
  expect(hook.requests[0]!.verifiedWith).toEqual([connector.secret]);
});
