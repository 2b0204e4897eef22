import { appendFileSync } from "node:fs";
import path from "node:path";
import { afterAll, inject } from "vitest";
import { createSieveClient, type SieveClient } from "@/lib/client/sieve-client";
import type { OpenApiDocument } from "@/lib/openapi/document";
import { OpenApiConformance, type Exchange } from "@/tests/support/openapi-conformance";

/**
 * Every response the HTTP tests receive through ApiClient (tests/http/support.ts) or the typed
 * client below is checked against the OpenAPI document the server serves; a response that does not
 * conform fails the test that received it. The counts go to reports/openapi-conformance.jsonl, which
 * tests/http/global-setup.ts sums up at the end of the run.
 */
export const CONFORMANCE_REPORT = path.join(process.cwd(), "reports", "openapi-conformance.jsonl");

const baseUrl = inject("baseUrl");
/** The served document (GET /v1/openapi.json), read once per test file. */
let served: Promise<OpenApiConformance> | undefined;
const checked = new Map<string, number>();

afterAll(() => {
  if (checked.size > 0) appendFileSync(CONFORMANCE_REPORT, `${JSON.stringify(Object.fromEntries(checked))}\n`);
  checked.clear();
});

/** Throws when the exchange does not conform to the served document (tests/support/openapi-conformance.ts). */
export async function expectConforms(exchange: Exchange): Promise<void> {
  served ??= fetch(`${baseUrl}/v1/openapi.json`)
    .then((response) => response.json() as Promise<OpenApiDocument>)
    .then((document) => new OpenApiConformance(document));
  const conformance = await served;
  const problems = conformance.problems(exchange);
  if (problems.length > 0) throw new Error(`The response does not conform to the OpenAPI document:\n${problems.join("\n")}`);
  const operation = conformance.operationOf(exchange.method, exchange.path)?.operation.operationId ?? "(no operation)";
  checked.set(operation, (checked.get(operation) ?? 0) + 1);
}

/** A response body as the tests read it: JSON when it parses, else the text (undefined when empty). */
export function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/**
 * The generated, typed client (lib/client) of the test server, with a fetch that checks every
 * response against the document as ApiClient does.
 */
export function typedClient(apiKey: string, serverUrl: string = baseUrl): SieveClient {
  const checkingFetch = async (request: Request): Promise<Response> => {
    const sent = request.headers.get("content-type")?.startsWith("application/json") ? parseBody(await request.clone().text()) : undefined;
    const response = await fetch(request);
    const url = new URL(request.url);
    await expectConforms({
      method: request.method,
      path: url.pathname.slice("/v1".length) + url.search,
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: parseBody(await response.clone().text()),
      requestJson: sent,
    });
    return response;
  };
  return createSieveClient({ baseUrl: `${serverUrl}/v1`, apiKey, fetch: checkingFetch });
}
