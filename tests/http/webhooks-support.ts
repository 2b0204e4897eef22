import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect } from "vitest";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { startTestServer, type CrashableServer, type RunningServer } from "@/tests/support/test-server";

/**
 * Support of the webhook delivery tests (webhooks*.test.ts): a real HTTP receiver that verifies
 * every request with the `standardwebhooks` package, an SMTP server (smtp-server), connectors made
 * through the API or as database rows, and a small API client for a server of the test's own.
 */

export interface DeliveryServer {
  /** Set once the file's beforeAll ran. */
  readonly server: RunningServer & CrashableServer;
  readonly smtp: Smtp;
  /** A receiver verifying with `secrets`, stopped after the file's tests. */
  receiver(secrets?: string[]): Promise<Receiver>;
}

/**
 * A delivery test server of the test file's own (deliveryEnv with `extra`) and its SMTP server:
 * started in the file's beforeAll, stopped with every receiver of `receiver()` in its afterAll.
 */
export function deliveryServer(extra: Record<string, string> = {}): DeliveryServer {
  let server: (RunningServer & CrashableServer) | undefined;
  let smtp: Smtp | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(deliveryEnv(smtp.port, extra));
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all(receivers.map((r) => r.stop()));
    await smtp?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get smtp() {
      return smtp!;
    },
    async receiver(secrets = []) {
      const r = await Receiver.start();
      r.secrets = secrets;
      receivers.push(r);
      return r;
    },
  };
}

/** The settings of a delivery test server: short schedule, quick disable, loopback receivers allowed. */
export function deliveryEnv(smtpPort: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SIEVE_ALLOW_PRIVATE_NETWORKS: "true",
    CONNECTOR_RETRY_SCHEDULE: "200ms,200ms,200ms",
    CONNECTOR_DISABLE_AFTER_FAILURES: "5",
    CONNECTOR_DISABLE_AFTER_FAILING_SECONDS: "0",
    CONNECTOR_SECRET_GRACE_SECONDS: "3600",
    CONNECTOR_TIMEOUT_MS: "1000",
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    SMTP_FROM: "Sieve Alerts <alerts@sieve.test>",
    SIEVE_EXECUTOR_RETRY_BASE_MS: "50",
    ...extra,
  };
}

export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, label: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// HTTP receiver

export interface ReceivedRequest {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** The secrets (of `receiver.secrets`) whose verification passed. */
  verifiedWith: string[];
}

/** What to answer: a status, a status and body, or "hang" (never answer); or a promise of one (answered when it settles). */
export type Answer = number | "hang" | { status: number; body?: string; headers?: Record<string, string> };

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  /** Secrets every request is verified with (each separately). */
  secrets: string[] = [];
  respond: (request: ReceivedRequest, index: number) => Answer | Promise<Answer> = () => 200;
  #server: http.Server;
  #port = 0;

  private constructor() {
    this.#server = this.#create();
  }

  static async start(port = 0): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.#listen(port);
    return receiver;
  }

  get port(): number {
    return this.#port;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.#port}${path}`;
  }

  /** Requests of one webhook-id (event id), in arrival order. */
  withId(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers["webhook-id"] === id);
  }

  /** Stops listening (connections refused) until `up()`. */
  async down(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async up(): Promise<void> {
    this.#server = this.#create();
    await this.#listen(this.#port);
  }

  stop(): Promise<void> {
    return this.#server.listening ? this.down() : Promise.resolve();
  }

  #create(): http.Server {
    return http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // not JSON
        }
        const verifiedWith = this.secrets.filter((secret) => {
          try {
            new Webhook(secret).verify(body, headers);
            return true;
          } catch {
            return false;
          }
        });
        const request: ReceivedRequest = { at: Date.now(), method: req.method ?? "", path: req.url ?? "", headers, body, json, verifiedWith };
        this.requests.push(request);
        const answer = this.respond(request, this.requests.length - 1);
        if (answer instanceof Promise) void answer.then((later) => Receiver.#answer(res, later));
        else Receiver.#answer(res, answer);
      });
    });
  }

  static #answer(res: http.ServerResponse, answer: Answer): void {
    if (answer === "hang") return;
    const { status, body: text = "", headers: extra = {} } = typeof answer === "number" ? { status: answer } : answer;
    res.writeHead(status, { "content-type": "text/plain", ...extra }).end(text || `answer ${status}`);
  }

  async #listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, "127.0.0.1", () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }
}

// ---------------------------------------------------------------------------------------------
// SMTP receiver

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface Smtp {
  port: number;
  mails: ReceivedMail[];
  stop: () => Promise<void>;
}

export async function startSmtp(): Promise<Smtp> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

// ---------------------------------------------------------------------------------------------
// API client and provisioning (for a server of the test file's own: DATABASE_URL points at it)

export interface Reply {
  status: number;
  body: any;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async request(method: string, path: string, json?: unknown): Promise<Reply> {
    const response = await fetch(`${this.baseUrl}/v1${path}`, {
      method,
      headers: { "X-Api-Key": this.apiKey, ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // text
    }
    return { status: response.status, body };
  }

  get = (path: string) => this.request("GET", path);
  post = (path: string, json?: unknown) => this.request("POST", path, json);
}

export interface Project {
  projectId: string;
  api: Api;
}

export async function newProject(baseUrl: string, name = "webhooks"): Promise<Project> {
  const { createProject } = await import("@/lib/projects/provision");
  const created = await createProject({ name, permissions: [...PERMISSIONS] });
  return { projectId: created.projectId, api: new Api(baseUrl, created.apiKey) };
}

export interface ConnectorInput {
  type?: "webhook" | "slack" | "email";
  name?: string;
  url?: string;
  recipients?: string[];
  eventTypes?: string[];
}

export interface TestConnector {
  id: string;
  secret: string;
}

/** A connector as a database row (no API involved; used where the API would refuse the URL, and as a fallback). */
export async function createConnectorRow(projectId: string, input: ConnectorInput): Promise<TestConnector> {
  const { db } = await import("@/lib/db/client");
  const secret = newSecret();
  const row = await db().connector.create({
    data: {
      projectId,
      type: input.type ?? "webhook",
      name: input.name ?? "test connector",
      url: input.type === "email" ? null : (input.url ?? null),
      recipients: input.recipients ?? [],
      eventTypes: input.eventTypes ?? [],
      secret,
    },
  });
  return { id: row.id, secret };
}

/** A connector through `POST /projects/{id}/connectors`; falls back to a row while the route does not exist. */
export async function createConnector(project: Project, input: ConnectorInput): Promise<TestConnector> {
  const body = { type: input.type ?? "webhook", name: input.name ?? "test connector", ...input };
  const res = await project.api.post(`/projects/${project.projectId}/connectors`, body);
  if (res.status === 404 && res.body?.code === "request/route-not-found") return createConnectorRow(project.projectId, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.secret).toMatch(/^whsec_/);
  return { id: res.body.id, secret: res.body.secret };
}

/** Uploads a text asset and waits for its decision (queue=false). */
export async function uploadText(project: Project, text: string, queue = false): Promise<string> {
  const res = await project.api.post(`/projects/${project.projectId}/assets?queue=${queue}`, {
    name: "note.txt",
    content: { plainText: text, type: "text/plain" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

/** The feed's cursor for "now". */
export async function feedCursor(project: Project): Promise<string> {
  const res = await project.api.get(`/projects/${project.projectId}/events?limit=1`);
  expect(res.status).toBe(200);
  return res.body.cursor as string;
}

/** Every feed event after `cursor` (following pages), once `until` accepts the list or the time is up. */
export async function feedEvents(project: Project, cursor: string, until: (events: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  const events: any[] = [];
  let after = cursor;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await project.api.get(`/projects/${project.projectId}/events?limit=100&after=${after}`);
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    after = res.body.cursor;
    if (res.body.hasMore) continue;
    if (until(events)) return events;
    if (Date.now() > deadline) throw new Error(`feed: condition not met; events ${JSON.stringify(events.map((e) => e.type))}`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// Database views of deliveries (through the test process's Prisma client)

/** The connector's delivery rows, oldest first, each with its attempts as the API lists them (attempt 1 may be in the row). */
export async function deliveriesOf(connectorId: string) {
  const { db } = await import("@/lib/db/client");
  const { deliveryAttempts } = await import("@/lib/connectors/serialize");
  const rows = await db().connectorDelivery.findMany({
    where: { connectorId },
    include: { log: { orderBy: { attempt: "asc" } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ ...row, log: deliveryAttempts(row) }));
}

export async function connectorRow(connectorId: string) {
  const { db } = await import("@/lib/db/client");
  return db().connector.findUniqueOrThrow({ where: { id: connectorId } });
}

/** Waits until every delivery of the connector has ended, and returns them. */
export async function settledDeliveries(connectorId: string, count: number, timeoutMs = 20_000) {
  let last: Awaited<ReturnType<typeof deliveriesOf>> = [];
  return waitFor(
    async () => {
      last = await deliveriesOf(connectorId);
      return last.length >= count && last.every((d) => d.status !== "pending") ? last : undefined;
    },
    `${count} settled deliveries of connector ${connectorId}`,
    timeoutMs,
  ).catch((error: Error) => {
    // What was there instead: too few deliveries, or which stayed pending (and how far they got).
    const found = last.map((d) => `${d.status} after ${d.attempts} attempt(s)${d.queuedAt ? ", queued" : ""}`);
    throw new Error(`${error.message}; found ${last.length}: ${found.join("; ") || "none"}`);
  });
}
