import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { startTestServer } from "@/tests/support/test-server";
import { CONSOLE_AREAS, type ConsoleArea, ENV_FILE, type E2eEnv, type E2eProject, type E2eUser } from "./env";
import { adminCli, Api, QUEUE_EVERYTHING, type Role, samplePng, sampleWav, TEXTS } from "./seed";

/**
 * One real production server for every spec (the build must exist: `npm test` runs `next build`
 * before the HTTP tests and reuses it here). Provisions four review projects and one per owner-console page (e2e/env.ts CONSOLE_AREAS) with API keys, creates the
 * users with the admin CLI, sets the projects' thresholds to 0 with it (so the pipeline rejects every
 * upload into the review queue) and seeds the queues through the public API; writes what the
 * specs need to reports/e2e-env.json. Returns the teardown (stops the server and its database).
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  mkdirSync(path.dirname(ENV_FILE), { recursive: true });
  rmSync(ENV_FILE, { force: true });
  rmSync(path.join(process.cwd(), "reports", "screenshots"), { recursive: true, force: true });

  const server = await startTestServer();
  try {
    const env = await seed(server.baseUrl, server.databaseUrl, server.dataDir);
    writeFileSync(ENV_FILE, `${JSON.stringify(env, null, 2)}\n`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server.stop;
}

async function seed(baseUrl: string, databaseUrl: string, dataDir: string): Promise<E2eEnv> {
  process.env.DATABASE_URL = databaseUrl;
  const { createProject } = await import("@/lib/projects/provision");
  const newProject = async (name: string): Promise<E2eProject> => {
    const created = await createProject({ name, permissions: [...PERMISSIONS] });
    return { id: created.projectId, name, apiKey: created.apiKey, texts: [] };
  };
  const review = await newProject("E2E Review");
  const keyboard = await newProject("E2E Keyboard");
  const bulk = await newProject("E2E Bulk");
  const paging = await newProject("E2E Paging");

  const cli = (args: string[]) => adminCli(databaseUrl, dataDir, args);
  // Every upload lands in the review queue (flagged and rejected by the pipeline), as an operator would set it up.
  for (const project of [review, keyboard, bulk, paging]) await cli(["set-moderation", "--project", project.id, "--thresholds", QUEUE_EVERYTHING]);
  // In the review project an undecodable image ends in `error` (not approvable) instead of `rejected`.
  await cli(["set-moderation", "--project", review.id, "--unanalysable", "error"]);
  const user = async (key: string, name: string, membership?: { project: E2eProject; role: Role }): Promise<E2eUser> => {
    const email = `${key}@e2e.sieve.test`;
    const password = `${key}-Pa55word!`;
    const args = ["create-user", "--email", email, "--password", password, "--name", name];
    if (membership) args.push("--project", membership.project.id, "--role", membership.role);
    const { userId } = await cli(args);
    return { email, password, name, userId: userId as string };
  };
  const consoleProjects = {} as Record<ConsoleArea, E2eProject>;
  for (const area of CONSOLE_AREAS) consoleProjects[area] = await newProject(`E2E Console ${area}`);
  const admin = await user("admin", "Ada Admin", { project: review, role: "admin" });
  for (const project of [keyboard, bulk, paging, ...Object.values(consoleProjects)]) {
    await cli(["add-member", "--project", project.id, "--user", admin.userId, "--role", "admin"]);
  }
  const member = await user("member", "Max Member", { project: review, role: "member" });
  for (const project of Object.values(consoleProjects)) await cli(["add-member", "--project", project.id, "--user", member.userId, "--role", "member"]);
  const users = {
    admin,
    member,
    viewer: await user("viewer", "Vera Viewer", { project: review, role: "viewer" }),
    outsider: await user("outsider", "Otto Outsider"),
    limited: await user("limited", "Lena Limited", { project: review, role: "member" }),
  };

  const texts = async (project: E2eProject, prefix: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const name = `${prefix}-${i + 1}.txt`;
      const api = new Api(baseUrl, project.apiKey);
      const id = await api.queuedAsset(project.id, name, { type: "text/plain", plainText: `${TEXTS[i % TEXTS.length]} (${prefix} ${i + 1})` });
      project.texts.push({ id, name });
    }
  };
  await texts(review, "review-note", 3);
  await texts(keyboard, "keyboard-note", 8);
  await texts(bulk, "bulk-note", 4);
  await texts(paging, "paging-note", 27);

  const reviewApi = new Api(baseUrl, review.apiKey);
  const imageName = "shapes.png";
  review.image = { name: imageName, id: await reviewApi.queuedAsset(review.id, imageName, { type: "image/png", base64: (await samplePng()).toString("base64") }) };
  const audioName = "tone.wav";
  review.audio = { name: audioName, id: await reviewApi.queuedAsset(review.id, audioName, { type: "audio/wav", base64: sampleWav().toString("base64") }, false) };

  const brokenName = "broken.png";
  const broken = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(256, 7)]);
  review.broken = { name: brokenName, id: await reviewApi.queuedAsset(review.id, brokenName, { type: "image/png", base64: broken.toString("base64") }) };

  return { baseUrl, databaseUrl, dataDir, console: consoleProjects, projects: { review, keyboard, bulk, paging }, users };
}
