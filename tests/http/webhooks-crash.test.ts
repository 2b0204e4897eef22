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
