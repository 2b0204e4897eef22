import { afterAll, beforeAll, expect, it } from "vitest";
import { baseUrl } from "./support";
import { createConnectorRow, deliveriesOf, newProject, Receiver, sleep, uploadText, waitFor } from "./webhooks-support";

/**
 * SSRF at delivery time, on the shared test server (started without SIEVE_ALLOW_PRIVATE_NETWORKS): a
 * connector whose host name resolves to loopback (written as a row: the API refuses such URLs when
 * they are created) fails its attempt with the address-policy error and never reaches the receiver.
 */
let hook: Receiver;

beforeAll(async () => {
  hook = await Receiver.start();
});

afterAll(async () => {
  await hook?.stop();
});

it("a connector whose host resolves to loopback is refused at delivery time", async () => {
  const project = await newProject(baseUrl);
  const connector = await createConnectorRow(project.projectId, { url: `http://localhost:${hook.port}/hook`, eventTypes: ["asset.uploaded"] });
  await uploadText(project, "no internal calls");
  const [delivery] = await waitFor(async () => {
    const rows = await deliveriesOf(connector.id);
    return rows[0]?.log.length ? rows : undefined;
  }, "the refused attempt");
  expect(delivery!.log[0]).toMatchObject({ attempt: 1, statusCode: null, responseExcerpt: null });
  expect(delivery!.log[0]!.error).toMatch(/Refusing to fetch localhost: it resolves to a loopback address, which is not allowed/);
  expect(delivery!.lastError).toBe(delivery!.log[0]!.error);
  await sleep(300);
  expect(hook.requests).toHaveLength(0);
});
