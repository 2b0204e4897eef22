import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { WebhookAnswer, WebhookSink } from "@/lib/net/webhook-post";
import { generateSecret } from "../secrets";
import type { QueuedSuccess } from "./batched";
import { pendingDelivery, type LoadedDelivery } from "./load";

/**
 * The first attempt's hot path (startWebhookFirstAttempt) without a network or database: the POST,
 * the success queue and the failure's transaction are stubbed. What is checked: which deliveries it
 * leaves to attemptDelivery, that its request is the Standard Webhooks one, that a success frees the
 * slot before its record and is queued with the attempt's log fields, and that a failure is recorded
 * (grows the failure run) before the lane hears of it.
 */
const posts: { url: string; body: string; headers: readonly string[]; sink: WebhookSink }[] = [];
const queued: QueuedSuccess[] = [];
const recordAttempt = vi.fn();
const updateConnectorFailure = vi.fn();
const handOffDeliveries = vi.fn();
const kickOutbox = vi.fn();

vi.mock("@/lib/net/webhook-post", () => ({
  sendWebhookPost: (url: string, body: string, headers: readonly string[], _options: unknown, sink: WebhookSink) => posts.push({ url, body, headers, sink }),
}));
vi.mock("./batched", () => ({ queueSuccess: (success: QueuedSuccess) => queued.push(success), loadFirstAttempt: vi.fn(), recordSuccessBatched: vi.fn() }));
vi.mock("@/lib/db/client", () => ({ sqlPool: () => ({}) }));
vi.mock("../delivery-jobs", () => ({ handOffDeliveries: (...args: unknown[]) => handOffDeliveries(...args) }));
vi.mock("@/lib/jobs/outbox", () => ({ kickOutbox: () => kickOutbox() }));
vi.mock("@/lib/db/transaction", () => ({
  Rollback: class {},
  withTransaction: (_pool: unknown, fn: (client: unknown) => Promise<unknown>) => fn({}),
}));
vi.mock("./store", async (original) => ({
  ...(await original<typeof import("./store")>()),
  lockConnectorFailures: async () => ({ enabled: true, consecutiveFailures: 0, failingSince: null, now: new Date() }),
  recordAttempt: (...args: unknown[]) => recordAttempt(...args),
  updateConnectorFailure: (...args: unknown[]) => updateConnectorFailure(...args),
}));

const { startWebhookFirstAttempt } = await import("./attempt");

const secret = generateSecret();

function delivery(over: { connector?: Partial<LoadedDelivery["connector"]> } & Partial<Omit<LoadedDelivery, "connector">> = {}): LoadedDelivery {
  const { connector, ...rest } = over;
  const read: Pick<LoadedDelivery, "connector" | "connectorHealth"> = {
    connector: {
      id: "connector-1",
      projectId: "project-1",
      type: "webhook",
      name: "hook",
      url: "http://127.0.0.1:9/hook",
      recipients: [],
      secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      enabled: true,
      eventTypes: [],
      ...connector,
    },
    connectorHealth: { failing: false, lastSuccessAt: null },
  };
  const event = {
    id: "event-1",
    type: "asset.uploaded",
    json: JSON.stringify({
      id: "event-1",
      type: "asset.uploaded",
      createdAt: Date.parse("2026-01-02T03:04:05.678Z"),
      projectId: "project-1",
      data: { severity: "low", title: "Asset uploaded", description: null, assetId: null, asset: null, facts: [{ key: "asset-name", value: "a.txt" }] },
    }),
  };
  return { ...pendingDelivery(read, event), ...rest };
}

function listener() {
  return { sent: vi.fn(), settled: vi.fn(), failed: vi.fn() };
}

const answer = (status: number, excerpt = "ok"): WebhookAnswer => ({ status, location: undefined, excerpt: Buffer.from(excerpt) });

beforeEach(() => {
  posts.length = 0;
  queued.length = 0;
  recordAttempt.mockReset().mockResolvedValue({ status: "pending", nextAttemptAt: new Date(Date.now() + 5000) });
  updateConnectorFailure.mockReset().mockResolvedValue(undefined);
  handOffDeliveries.mockReset().mockResolvedValue(undefined);
  kickOutbox.mockReset().mockResolvedValue(undefined);
});

describe("startWebhookFirstAttempt", () => {
  it("leaves to attemptDelivery what needs more than a plain send", () => {
    const cases: LoadedDelivery[] = [
      delivery({ connector: { type: "slack" } }),
      delivery({ connector: { url: null } }),
      delivery({ connector: { enabled: false } }),
      delivery({ connector: { eventTypes: ["asset.flagged"] } }),
      delivery({ connectorHealth: { failing: true, lastSuccessAt: null } }),
      delivery({ status: "succeeded" }),
      delivery({ recordedAttempt: { statusCode: 500, error: "HTTP 500" } }),
      delivery({ event: null }),
    ];
    for (const loaded of cases) expect(startWebhookFirstAttempt("delivery-1", loaded, listener())).toBe(false);
    expect(posts).toHaveLength(0);
  });

  it("sends the signed envelope, frees the slot on a 2xx and queues the success with its log fields", () => {
    const lane = listener();
    const loaded = delivery({ connector: { eventTypes: ["asset.uploaded"] } });
    expect(startWebhookFirstAttempt("delivery-1", loaded, lane)).toBe(true);
    const [post] = posts;
    expect(post!.url).toBe("http://127.0.0.1:9/hook");
    const headers = Object.fromEntries(Array.from({ length: post!.headers.length / 2 }, (_, i) => [post!.headers[2 * i], post!.headers[2 * i + 1]]));
    expect(headers["webhook-id"]).toBe("event-1");
    expect(new Webhook(secret).verify(post!.body, headers)).toMatchObject({ id: "event-1", type: "asset.uploaded", projectId: "project-1" });

    post!.sink.answered(answer(204, ""));
    expect(lane.sent).toHaveBeenCalledTimes(1);
    expect(queued).toHaveLength(1);
    const success = queued[0]!;
    expect(success).toMatchObject({ deliveryId: "delivery-1", connectorId: "connector-1", attempt: 1, statusCode: 204, error: null, responseExcerpt: null });
    expect(success.startedMs).toBeGreaterThan(0);
    expect(success.latencyMs).toBeGreaterThanOrEqual(0);
    expect(lane.settled).not.toHaveBeenCalled();
    success.recorded({ status: "succeeded", nextAttemptAt: null });
    expect(lane.settled).toHaveBeenCalledWith({ status: "succeeded", done: true, queued: false });
  });

  it("records a failed answer, growing the failure run, before the lane hears of it; the slot is not freed early", async () => {
    const lane = listener();
    startWebhookFirstAttempt("delivery-1", delivery(), lane);
    posts[0]!.sink.answered(answer(500, "boom"));
    await vi.waitFor(() => expect(lane.settled).toHaveBeenCalled());
    expect(lane.sent).not.toHaveBeenCalled();
    expect(queued).toHaveLength(0);
    expect(recordAttempt).toHaveBeenCalledWith(
      {},
      expect.objectContaining({ deliveryId: "delivery-1", attempt: 1, statusCode: 500, error: "HTTP 500", responseExcerpt: "boom", status: "pending" }),
    );
    expect(updateConnectorFailure).toHaveBeenCalledWith({}, "connector-1", expect.objectContaining({ consecutiveFailures: 1, lastError: "HTTP 500" }));
    // Its retries are the job runner's: handed off in the transaction of the record (the same client), the relay kicked after.
    expect(handOffDeliveries).toHaveBeenCalledWith({}, [{ deliveryId: "delivery-1", connectorId: "connector-1" }]);
    expect(kickOutbox).toHaveBeenCalledTimes(1);
    expect(lane.settled).toHaveBeenCalledWith(expect.objectContaining({ status: "pending", done: false, statusCode: 500, queued: true }));
  });

  it("hands off no failure whose record finished the delivery", async () => {
    recordAttempt.mockResolvedValue({ status: "cancelled", nextAttemptAt: null }); // cancelled while the request was out
    const lane = listener();
    startWebhookFirstAttempt("delivery-1", delivery(), lane);
    posts[0]!.sink.answered(answer(500, "boom"));
    await vi.waitFor(() => expect(lane.settled).toHaveBeenCalled());
    expect(handOffDeliveries).not.toHaveBeenCalled();
    expect(kickOutbox).not.toHaveBeenCalled();
    expect(lane.settled).toHaveBeenCalledWith(expect.objectContaining({ status: "cancelled", done: true, queued: false }));
  });

  it("records a request that got no answer as a failed attempt with its error", async () => {
    const lane = listener();
    startWebhookFirstAttempt("delivery-1", delivery(), lane);
    posts[0]!.sink.failed(new Error("connect ECONNREFUSED"));
    await vi.waitFor(() => expect(lane.settled).toHaveBeenCalled());
    expect(recordAttempt).toHaveBeenCalledWith({}, expect.objectContaining({ statusCode: null, error: "connect ECONNREFUSED" }));
  });
});
