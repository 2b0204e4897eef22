import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeChatCompletions, type FakeChatCompletions } from "@/tests/support/fake-chat-completions";
import { startTestServer, type RunningServer } from "@/tests/support/test-server";

/**
 * SIEVE_IMAGE_LABEL_PROVIDERS=detector,describer against a local server speaking the
 * chat-completions API with images (what Ollama serves for qwen2.5vl or llava): each image gets a
 * sentence beside its detected labels, natural-language search finds it by that sentence's words
 * (scenes the detector has no label for), and a describer that fails costs only the description.
 */
const VISION = path.join(process.cwd(), "tests/fixtures/vision");
const SENTENCE = "A ginger cat resting on a sandy beach at sunset.";

let fake: FakeChatCompletions;
let server: RunningServer;
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  fake = await startFakeChatCompletions({ model: "qwen2.5vl:3b" });
  fake.setModel(() => ({ reply: { content: SENTENCE } }));
  server = await startTestServer({
    SIEVE_IMAGE_LABEL_PROVIDERS: "detector,describer",
    SIEVE_IMAGE_DESCRIBER_BASE_URL: fake.baseUrl,
    SIEVE_IMAGE_DESCRIBER_MODEL: "qwen2.5vl:3b",
    SIEVE_IMAGE_DESCRIBER_TIMEOUT_MS: "2000",
    SIEVE_IMAGE_DESCRIBER_RETRIES: "0",
  });
  const { createProject } = await import("@/lib/projects/provision");
  project = await createProject({ name: "describer", permissions: ["assets:write", "assets:read"] });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function api(pathname: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${server.baseUrl}/v1${pathname}`, { ...init, headers: { "X-Api-Key": project.apiKey, "Content-Type": "application/json", ...init.headers } });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${pathname}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function uploadImage(name: string, file: string): Promise<string> {
  const base64 = (await readFile(path.join(VISION, file))).toString("base64");
  const asset = await api(`/projects/${project.projectId}/assets?queue=false`, { method: "POST", body: JSON.stringify({ name, content: { type: "image/jpeg", base64 } }) });
  expect(asset.status).toBe("approved");
  return asset.id as string;
}

async function labelled(id: string): Promise<any> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const asset = await api(`/assets/${id}`);
    if (asset.imageLabels) return asset;
    if (Date.now() > deadline) throw new Error(`asset ${id} not labelled in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function searchNames(q: string, mode = "natural"): Promise<string[]> {
  const page = await api(`/projects/${project.projectId}/assets/search?${new URLSearchParams({ q, mode })}`);
  return page.items.map((item: { asset: { name: string } }) => item.asset.name);
}

describe("an image describer beside the detector", () => {
  it("adds a sentence to the labels, and search finds the image by its words", async () => {
    const id = await uploadImage("a.jpg", "cat.jpg");
    const asset = await labelled(id);
    expect(asset.imageLabels.description).toBe(SENTENCE);
    expect(asset.imageLabels.model).toMatch(/centernet.*\+describer:qwen2\.5vl:3b$/);
    expect(asset.imageLabels.objects.map((o: { label: string }) => o.label)).toContain("cat");

    const request = fake.requests.at(-1)!.body as { messages: { content: { type: string; image_url?: { url: string } }[] }[] };
    expect(request.messages[0]!.content.find((part) => part.type === "image_url")!.image_url!.url).toMatch(/^data:image\/jpeg;base64,/);

    // Scenes no detector label covers, stemmed ("sunsets", "beaches"), and a word beside a label.
    expect(await searchNames("sunsets")).toEqual(["a.jpg"]);
    expect(await searchNames("cat on the beach")).toEqual(["a.jpg"]);
    expect(await searchNames("snow")).toEqual([]);
    // Keywords mode stays the asset's own text.
    expect(await searchNames("beach", "keywords")).toEqual([]);
  }, 120_000);

  it("a describer that fails leaves the detected labels, without a description", async () => {
    fake.setModel(() => ({ status: 500, message: "model crashed" }));
    try {
      const id = await uploadImage("b.jpg", "two-people.jpg");
      const asset = await labelled(id);
      expect(asset.imageLabels.description).toBeNull();
      expect(asset.imageLabels.model).not.toContain("describer");
      expect(asset.imageLabels.objects.map((o: { label: string }) => o.label)).toContain("person");
    } finally {
      fake.setModel(() => ({ reply: { content: SENTENCE } }));
    }
  }, 120_000);
});
