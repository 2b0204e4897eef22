import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startTestServer } from "@/tests/support/test-server";

/** One real server for all HTTP test files; they provision projects through lib/projects. */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    cdnOrigin: string;
    serverPid: number;
    databaseUrl: string;
    dataDir: string;
  }
}

// tests/http/conformance-support.ts appends one line of counts per test file.
const CONFORMANCE_REPORT = path.join(process.cwd(), "reports", "openapi-conformance.jsonl");

export default async function setup(project: TestProject) {
  mkdirSync(path.dirname(CONFORMANCE_REPORT), { recursive: true });
  rmSync(CONFORMANCE_REPORT, { force: true });
  const server = await startTestServer({ SIEVE_UPLOAD_EXPIRY_SECONDS: "5", SIEVE_EXECUTOR_RETRY_BASE_MS: "50" });
  project.provide("baseUrl", server.baseUrl);
  project.provide("cdnOrigin", server.cdnOrigin);
  project.provide("serverPid", server.pid());
  project.provide("databaseUrl", server.databaseUrl);
  project.provide("dataDir", server.dataDir);
  return async () => {
    await printConformanceSummary(server.baseUrl).catch((error: unknown) => console.log(`OpenAPI conformance: no summary (${String(error)})`));
    await server.stop();
  };
}

async function printConformanceSummary(baseUrl: string): Promise<void> {
  if (!existsSync(CONFORMANCE_REPORT)) return;
  const byOperation = new Map<string, number>();
  for (const line of readFileSync(CONFORMANCE_REPORT, "utf8").split("\n").filter(Boolean)) {
    for (const [operation, count] of Object.entries(JSON.parse(line) as Record<string, number>)) byOperation.set(operation, (byOperation.get(operation) ?? 0) + count);
  }
  const total = [...byOperation.values()].reduce((a, b) => a + b, 0);
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
  const all = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
  const unexercised = all.filter((id) => !byOperation.has(id));
  console.log(
    `OpenAPI conformance: ${total} responses checked against the document, covering ${all.length - unexercised.length} of ${all.length} operations` +
      (unexercised.length ? ` (not exercised: ${unexercised.join(", ")})` : ""),
  );
}
