import type { TestProject } from "vitest/node";
import { startTestServer } from "@/tests/support/test-server";

/** One real server for all HTTP test files; they provision projects through lib/projects. */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startTestServer({ SIEVE_UPLOAD_EXPIRY_SECONDS: "5", SIEVE_EXECUTOR_RETRY_BASE_MS: "50" });
  project.provide("baseUrl", server.baseUrl);
  project.provide("databaseUrl", server.databaseUrl);
  project.provide("dataDir", server.dataDir);
  return server.stop;
}
