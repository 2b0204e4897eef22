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
 * A delivery whose first attempt is in flight when the server dies is not lost. Its row is written
 * only once that attempt is over (lib/connectors/delivery/passes.ts), so at the crash the database
 * holds just the dispatcher's pass; the restarted server's sweep writes the delivery and hands it to
 * the job runner, which delivers it (again: the receiver deduplicates on webhook-id) and logs it once.
 */
// The sweep takes passes 2 s old (the default is 60 s); the first attempt hangs past the crash.
const env = deliveryServer({ CONNECTOR_SWEEP_AFTER_SECONDS: "2", CONNECTOR_TIMEOUT_MS: "30000", SIEVE_EXECUTOR_LEASE_MS: "2000" });

it("a first attempt in flight at a crash is written and delivered after a restart", { timeout: 240_000 }, async () => {
  const project = await newProject(env.server.baseUrl);
  const hook = await env.receiver();
  const connector = await createConnector(project, { url: hook.url(), eventTypes: ["asset.uploaded"] });
  hook.secrets = [connector.secret];
  hook.respond = () => "hang";

  const cursor = await feedCursor(project);
  await uploadText(project, "in flight at the crash");
  const [event] = await feedEvents(project, cursor, (events) => events.some((e) => e.type === "asset.uploaded"));
  await waitFor(() => hook.requests.length === 1, "the first attempt at the receiver");
  expect(await deliveriesOf(connector.id), "no row while the first attempt is in flight").toEqual([]);

  await env.server.kill();
  hook.respond = () => 200;
  await env.server.restart();

  const [delivered] = await settledDeliveries(connector.id, 1, 60_000);
  expect(delivered).toMatchObject({ eventId: event.id, status: "succeeded", attempts: 1, lastStatusCode: 200 });
  expect(delivered!.log.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
  expect(hook.withId(event.id)).toHaveLength(2); // the hung first attempt, then the recovered one
  expect(hook.requests[1]!.verifiedWith).toEqual([connector.secret]);
  expect(await deliveriesOf(connector.id)).toHaveLength(1);
});

it("a shutdown (SIGTERM) waits for the first attempts in flight and records them: none is sent again after the restart", { timeout: 240_000 }, async () => {
  const project = await newProject(env.server.baseUrl);
  const hook = await env.receiver();
  const connector = await createConnector(project, { url: hook.url(), eventTypes: ["asset.uploaded"] });
  hook.secrets = [connector.secret];
  // Each answer comes a second later: the attempts are in flight when the server is told to stop.
  hook.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 1_000));

  const cursor = await feedCursor(project);
  for (let i = 0; i < 3; i++) await uploadText(project, `in flight at the shutdown ${i}`);
  const events = await feedEvents(project, cursor, (found) => found.filter((e) => e.type === "asset.uploaded").length === 3);
  const uploaded = events.filter((e) => e.type === "asset.uploaded");
  await waitFor(() => hook.requests.length === 3, "the three first attempts at the receiver");

  await env.server.terminate();
  expect(env.server.output()).not.toMatch(/still in flight at shutdown/);
  hook.respond = () => 200;
  await env.server.restart();

  const delivered = await settledDeliveries(connector.id, 3, 60_000);
  expect(delivered.map((d) => [d.status, d.attempts]), "recorded before the shutdown, as succeeded").toEqual([
    ["succeeded", 1],
    ["succeeded", 1],
    ["succeeded", 1],
  ]);
  // Longer than the sweep's 2 s: a delivery left unrecorded would be written and sent again by now.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  for (const event of uploaded) expect(hook.withId(event.id), `requests with webhook-id ${event.id}`).toHaveLength(1);
});
