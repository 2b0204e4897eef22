/**
 * `npx tsx bench/json-memory.ts`: how much resident memory the server gains while it takes JSON
 * Create Asset bodies at the JSON cap (base64 `content`), one alone and then four at once.
 * Starts its own production server (like `npm run bench`), so the figures are that process's only.
 * Not a test; tests/http/json-memory.test.ts asserts a bound on the same measurement.
 *
 * Env: JSON_MEMORY_BODY_BYTES (default: the JSON cap), JSON_MEMORY_QUEUE=true (answer before the
 * decision), JSON_MEMORY_READ_ONLY=true (a folderId that does not exist: the request ends with 404
 * once the body is read and decoded, so only the JSON path is measured), BENCH_SERVER_ENV (JSON
 * object of server env vars, e.g. a different cap).
 */
import { ensureNextBuild } from "@/lib/server/build";
import { startTestServer } from "@/tests/support/test-server";
import { jsonCreateBody, memoryOf, resetPeak } from "@/tests/support/process-memory";

const MiB = 1024 * 1024;

async function main() {
  await ensureNextBuild(process.cwd());
  const serverEnv: Record<string, string> = process.env.BENCH_SERVER_ENV ? JSON.parse(process.env.BENCH_SERVER_ENV) : {};
  const server = await startTestServer(serverEnv);
  try {
    const { createProject } = await import("@/lib/projects/provision");
    const { createApiKey } = await import("@/lib/auth/api-keys");
    const { config } = await import("@/lib/core/config");
    const permissions = ["assets:write", "assets:read"] as const;
    const project = await createProject({ name: "json-memory", permissions: [...permissions] });
    const key = await createApiKey({ projectId: project.projectId, permissions: [...permissions], rateLimitPerSecond: 0 });
    const cap = Number(serverEnv.SIEVE_MAX_JSON_BODY_BYTES ?? config().limits.maxJsonBodyBytes);
    const bodyBytes = Number(process.env.JSON_MEMORY_BODY_BYTES ?? cap);
    const queue = process.env.JSON_MEMORY_QUEUE === "true";
    const url = `${server.baseUrl}/v1/projects/${project.projectId}/assets${queue ? "?queue=true" : ""}`;
    const post = async (body: Buffer) => {
      const started = performance.now();
      const response = await fetch(url, {
        method: "POST",
        headers: { "X-Api-Key": key.apiKey, "Content-Type": "application/json" },
        body: body as unknown as BodyInit,
      });
      const text = await response.text();
      return { status: response.status, ms: Math.round(performance.now() - started), detail: response.ok ? "" : text.slice(0, 200) };
    };

    // Warm-up: route compilation, key cache, connection pools.
    await post(jsonCreateBody(4096).body);
    const readOnly = process.env.JSON_MEMORY_READ_ONLY === "true";
    const fields = readOnly ? { folderId: "00000000-0000-4000-8000-000000000000" } : {};
    const bodies = [0, 1, 2, 3].map(() => jsonCreateBody(bodyBytes, fields).body);
    console.log(`JSON cap ${(cap / MiB).toFixed(1)} MiB; bodies of ${(bodies[0]!.length / MiB).toFixed(1)} MiB; queue=${queue}; read only=${readOnly}`);

    for (const concurrent of [1, 4]) {
      await settle();
      const before = await memoryOf(server.pid());
      await resetPeak(server.pid());
      const results = await Promise.all(bodies.slice(0, concurrent).map(post));
      const after = await memoryOf(server.pid());
      const growth = after.peakRssBytes - before.rssBytes;
      console.log(
        `${concurrent} concurrent: RSS before ${mib(before.rssBytes)}, peak ${mib(after.peakRssBytes)}, growth ${mib(growth)} ` +
          `(${(growth / (concurrent * bodies[0]!.length)).toFixed(2)}x the bodies); ` +
          results.map((r) => `${r.status} in ${r.ms} ms${r.detail ? ` ${r.detail}` : ""}`).join(", "),
      );
    }
  } finally {
    const { disconnectDb } = await import("@/lib/db/client");
    await disconnectDb();
    await server.stop();
  }
}

function mib(bytes: number) {
  return `${(bytes / MiB).toFixed(0)} MiB`;
}

/** Lets the previous round's garbage and background work settle before a baseline is taken. */
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 3000));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
