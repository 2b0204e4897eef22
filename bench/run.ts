/**
 * `npm run bench`: starts a production server on a throw-away embedded PostgreSQL and prints each
 * benchmark's figures as ratios against a baseline measured in the same run. Not a test.
 * BENCH_ONLY=cdn (comma-separated: text-quality, speech, create-asset, throughput, verdict, cdn, events, portal, image-search) runs only the named benches;
 * text-quality and speech run in-process first and need no server.
 */
import { benchCdn } from "@/bench/cdn";
import { benchCreateAsset } from "@/bench/create-asset";
import { benchEvents } from "@/bench/events";
import { benchImageSearch } from "@/bench/image-search";
import { benchPipelineThroughput } from "@/bench/pipeline-throughput";
import { benchPortal } from "@/bench/portal";
import { benchSpeechQuality } from "@/bench/speech-quality";
import { benchTextQuality } from "@/bench/text-quality";
import { benchVerdictLatency } from "@/bench/verdict-latency";
import { ensureNextBuild } from "@/lib/server/build";
import { startTestServer } from "@/tests/support/test-server";
import { freePort } from "@/lib/db/embedded/postmaster";

const BENCHES = ["text-quality", "speech", "create-asset", "throughput", "verdict", "cdn", "events", "portal", "image-search"];

async function main() {
  const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((name) => !BENCHES.includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown bench ${unknown.join(", ")} (known: ${BENCHES.join(", ")})`);
  const runs = (name: string) => only.length === 0 || only.includes(name);
  if (runs("text-quality")) benchTextQuality();
  if (runs("speech")) await benchSpeechQuality();
  if (only.length > 0 && only.every((name) => name === "text-quality" || name === "speech")) return;
  await ensureNextBuild(process.cwd());
  // The delivery bench's baseline is sent from inside the server process (bench/server-probe.mjs).
  const probePort = await freePort();
  process.env.SIEVE_SERVER_NODE_ARGS = `${process.env.SIEVE_SERVER_NODE_ARGS ?? ""} --import ./bench/server-probe.mjs`.trim();
  // Private networks allowed: the webhook bench delivers to a receiver on 127.0.0.1.
  const server = await startTestServer({
    SIEVE_ALLOW_PRIVATE_NETWORKS: "true",
    SIEVE_BENCH_PROBE_PORT: String(probePort),
    ...(process.env.BENCH_SERVER_ENV ? JSON.parse(process.env.BENCH_SERVER_ENV) : {}),
  });
  try {
    const { createProject } = await import("@/lib/projects/provision");
    const { createApiKey } = await import("@/lib/auth/api-keys");
    const project = await createProject({ name: "bench", permissions: ["assets:write", "assets:read"] });
    // Rate limiting off for this key (0 = unlimited) so the benchmark measures the service; read to poll decisions.
    const key = await createApiKey({ projectId: project.projectId, permissions: ["assets:write", "assets:read"], rateLimitPerSecond: 0 });
    if (runs("create-asset")) await benchCreateAsset(server, key.apiKey, project.projectId);
    if (runs("throughput")) await benchPipelineThroughput(server);
    if (runs("verdict")) await benchVerdictLatency(server, key.apiKey, project.projectId);
    if (runs("cdn")) await benchCdn(server, key.apiKey, project.projectId);
    if (runs("events")) await benchEvents(server, `http://127.0.0.1:${probePort}`);
    if (runs("portal")) await benchPortal(server);
    if (runs("image-search")) await benchImageSearch(server);
  } finally {
    const { disconnectDb } = await import("@/lib/db/client");
    await disconnectDb();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
