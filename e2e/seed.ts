import { spawn } from "node:child_process";

/**
 * Seeding for the end-to-end tests, done the way operators and API clients do it: users through
 * the admin CLI (`npm run --silent admin -- …`), assets through the public /v1 API with a key.
 */

export type Role = "admin" | "member" | "viewer";

/** Runs the admin CLI against the test server's database; returns its one JSON line. */
export async function adminCli(databaseUrl: string, dataDir: string, args: string[]): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "admin", "--", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", reject);
    child.once("close", (status) => resolve({ code: status, stdout: out, stderr: err }));
  });
  if (code !== 0) throw new Error(`admin ${args[0]} failed (exit ${code}): ${stderr}`);
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as Record<string, unknown>;
}

/** A tiny client of the public API (X-Api-Key). */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async call<T = Record<string, any>>(method: string, path: string, json?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}/v1${path}`, {
      method,
      headers: { "X-Api-Key": this.apiKey, ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /v1${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Waits until the pipeline has decided the asset (background types: audio, video, documents). */
  async decided(assetId: string, timeoutMs = 120_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const asset = await this.call("GET", `/assets/${assetId}`);
      if (asset.status !== "pending" && asset.status !== "uploading") return asset;
      if (Date.now() > deadline) throw new Error(`asset ${assetId} still ${asset.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Creates an asset that lands in the review queue: the project's thresholds are 0 (see
   * QUEUE_EVERYTHING), so the pipeline flags and rejects it (or it ends in `error`). A reviewer's
   * decision, even a rejection through the API, would take it out of the queue. `mustQueue` false:
   * any decision will do (audio: without pocketsphinx nothing judges it, so it is approved).
   */
  async queuedAsset(projectId: string, name: string, content: { type: string; plainText?: string; base64?: string }, mustQueue = true): Promise<string> {
    const created = await this.call("POST", `/projects/${projectId}/assets?queue=false`, {
      name,
      content,
      processingOptions: { keepContentAfterProcessing: true },
    });
    const decided = await this.decided(created.id as string);
    if (mustQueue && decided.status !== "rejected" && decided.status !== "error") {
      throw new Error(`seed asset ${name} ended ${decided.status}, not in the review queue: ${JSON.stringify(decided.report?.categories ?? null)}`);
    }
    return created.id as string;
  }
}

/** `admin set-moderation` thresholds that flag every judged category: every seeded asset is rejected. */
export const QUEUE_EVERYTHING = ["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"].map((c) => `${c}=0`).join(",");

/** A 320×200 PNG with coloured shapes, so a blur is visible (made with sharp). */
export async function samplePng(): Promise<Buffer> {
  const sharp = (await import("sharp")).default;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200">
    <rect width="320" height="200" fill="#1e6fd9"/>
    <circle cx="90" cy="100" r="60" fill="#f2c230"/>
    <rect x="180" y="40" width="100" height="120" fill="#d93a1e"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** One second of a 440 Hz tone as 16-bit mono WAV at 8 kHz. */
export function sampleWav(): Buffer {
  const rate = 8000;
  const samples = rate;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Harmless texts (the zero thresholds still flag them). */
export const TEXTS = [
  "Thanks for the lovely afternoon at the lake, see you next week!",
  "The bakery on the corner has fresh bread every morning.",
  "Our book club meets on Thursday to talk about the new novel.",
  "Remember to water the tomatoes while I am away.",
  "The train to the coast leaves at nine from platform two.",
  "Happy birthday! I hope the cake turned out as good as last year.",
  "The museum opens a new exhibition about old maps in spring.",
  "Please bring a warm jacket, the evenings are getting cold.",
];
