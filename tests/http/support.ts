import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";
import type { Permission } from "@/lib/auth/permissions";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { expectConforms, parseBody } from "@/tests/http/conformance-support";

/**
 * Helpers for HTTP-level tests: provisioning through the library the admin CLI uses, and a tiny
 * client that checks every response against the OpenAPI document (tests/http/conformance-support.ts).
 */
export const baseUrl = inject("baseUrl");
process.env.DATABASE_URL = inject("databaseUrl");
process.env.DATA_DIR = inject("dataDir");

export interface TestProject {
  projectId: string;
  apiKey: string;
  ownerUserId: string;
  client: ApiClient;
}

export async function newProject(permissions: Permission[] = [...PERMISSIONS], name = "test project"): Promise<TestProject> {
  const { createProject } = await import("@/lib/projects/provision");
  const created = await createProject({ name, permissions });
  return { ...created, client: new ApiClient(created.apiKey) };
}

export async function newKey(projectId: string, permissions: Permission[], extra: { rateLimitPerSecond?: number; expiresAt?: Date } = {}) {
  const { createApiKey } = await import("@/lib/auth/api-keys");
  const key = await createApiKey({ projectId, permissions, ...extra });
  return { ...key, client: new ApiClient(key.apiKey) };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  constructor(readonly apiKey: string | null) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { json?: unknown; body?: BodyInit | Buffer; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(this.apiKey ? { "X-Api-Key": this.apiKey } : {}), ...options.headers };
    let body: BodyInit | undefined;
    if (options.json !== undefined) {
      headers["Content-Type"] ??= "application/json";
      body = JSON.stringify(options.json);
    } else if (options.body !== undefined) {
      body = options.body as BodyInit;
    }
    const response = await fetch(`${baseUrl}/v1${path}`, { method, headers, body });
    const text = await response.text();
    const parsed = parseBody(text);
    const requestJson = headers["Content-Type"]?.startsWith("application/json") ? options.json : undefined;
    await expectConforms({ method, path, status: response.status, contentType: response.headers.get("content-type"), body: parsed, requestJson });
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }
  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { json, headers });
  }
  patch<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>("PATCH", path, { json, headers });
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("DELETE", path, { headers });
  }

  /**
   * Sends a body the server may refuse before it has all of it (413): the server answers, says
   * `Connection: close` and reads and drops the rest (lib/server/unread-bodies.ts). The body goes in
   * 1 MiB chunks that stop once the answer has arrived, and a connection still lost before any answer
   * (EPIPE, reset) is tried again (twice at most: a refused body stores nothing); a server that never
   * answers still fails the test.
   */
  async sendOversized<T = any>(method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<ApiResponse<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sendOversizedOnce<T>(method, path, body, headers);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 3 || (code !== "EPIPE" && code !== "ECONNRESET")) throw error;
      }
    }
  }

  private sendOversizedOnce<T>(method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<ApiResponse<T>> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = http.request(`${baseUrl}/v1${path}`, { method, headers: { ...(this.apiKey ? { "X-Api-Key": this.apiKey } : {}), ...headers, "Content-Length": String(body.length) } });
      req.on("response", (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") responseHeaders.set(name, value);
          const parsed = parseBody(text);
          const status = response.statusCode ?? 0;
          expectConforms({ method, path, status, contentType: responseHeaders.get("content-type"), body: parsed })
            .then(() => resolve({ status, headers: responseHeaders, body: parsed as T, text }))
            .catch(reject);
        });
      });
      req.on("error", (error) => {
        if (!answered) reject(error);
      });
      const CHUNK = 1024 * 1024;
      const writeFrom = (offset: number): void => {
        for (let at = offset; at < body.length; at += CHUNK) {
          if (answered || req.destroyed) return;
          if (!req.write(body.subarray(at, at + CHUNK))) {
            req.once("drain", () => writeFrom(at + CHUNK));
            return;
          }
        }
        req.end();
      };
      writeFrom(0);
    });
  }
}

/** Asserts the spec's error body and returns it. */
export function expectError(response: ApiResponse, status: number, code: string) {
  const detail = `${response.status} ${response.text}`;
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${detail}`);
  const body = response.body as { message?: unknown; code?: unknown; traceId?: unknown };
  if (body?.code !== code) throw new Error(`expected code ${code}, got ${detail}`);
  if (typeof body.message !== "string" || body.message.length === 0) throw new Error(`missing message: ${detail}`);
  if (body.traceId !== response.headers.get("x-request-id")) throw new Error(`traceId must equal X-Request-Id: ${detail}`);
  if (Object.keys(body).sort().join(",") !== "code,message,traceId") throw new Error(`extra fields in error body: ${detail}`);
  return body;
}

/** A small valid PNG (generated with sharp in the test process). */
export async function pngBytes(width = 8, height = 8): Promise<Buffer> {
  const sharp = (await import("sharp")).default;
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
}

/**
 * Waits until the pipeline has decided an asset (status `approved`, `rejected` or `error`) and
 * returns it as GET /assets/:id shows it. Needed for assets decided in the background: `queue=true`
 * uploads and types other than text and images. Fails after `timeoutMs` with the last status seen.
 * Content removal (for uploads without keepContentAfterProcessing) follows the decision, so a test
 * that inspects storage of such an asset must not rely on this alone.
 */
export async function waitForDecision(client: ApiClient, assetId: string, timeoutMs = 20_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.get(`/assets/${assetId}`);
    if (res.status !== 200) throw new Error(`GET /assets/${assetId}: ${res.status} ${res.text}`);
    const status = (res.body as { status: string }).status;
    if (status !== "pending" && status !== "uploading") return res.body as Record<string, any>;
    if (Date.now() > deadline) throw new Error(`asset ${assetId} still ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The body of a successful (200) response; anything else fails with the status and body. */
export function expectOk<T = Record<string, any>>(res: ApiResponse): T {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${res.text}`);
  return res.body as T;
}

/** Runs the admin CLI against the test server's database and returns its JSON line. */
export async function admin(...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args], {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: inject("databaseUrl"), DATA_DIR: inject("dataDir") },
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string);
}

export const MiB = 1024 * 1024;

export const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The bytes stored under a storageId (filesystem storage of the test server). */
export function storedBytes(storageId: string): Promise<Buffer> {
  return readFile(path.join(inject("dataDir"), "storage", ...storageId.split("/")));
}

/** Creates a folder at the project root and returns its id. */
export async function newFolder(p: TestProject, name: string): Promise<string> {
  return expectOk(await p.client.post(`/projects/${p.projectId}/folders`, { name })).id as string;
}
