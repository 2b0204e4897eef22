import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { espeakMissingReason, speakToWav, speechAsMp3, speechAsVideo, spokenSentence } from "@/tests/support/speech-fixtures";
import { expectOk, newProject, type TestProject, waitForDecision } from "./support";

/**
 * Harmful speech reaches the text classifier: sentences spoken by espeak-ng (tests/fixtures/speech),
 * uploaded as audio and as video, are transcribed by pocketsphinx in the pipeline and classified as
 * text. Every assertion depends on the transcript: without speech recognition an audio file has
 * nothing to judge and is rejected for review without a policy action, never with a violence flag.
 */
const missing = await espeakMissingReason();
if (missing) console.warn(`tests/http/speech.test.ts skipped: ${missing}`);

const THREAT = spokenSentence("kill-tomorrow");
const BENIGN = spokenSentence("dinner");
const FLAGGED = /^(likely|very-likely)$/;

let p: TestProject;
let dir: string;

beforeAll(async () => {
  if (missing) return;
  p = await newProject();
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-speech-test-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Upload with queue=false; media is always decided in the background, so poll for the decision. */
async function upload(name: string, type: string, file: string) {
  const bytes = await readFile(file);
  const created = expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name, content: { type, base64: bytes.toString("base64") } }));
  return created.status === "pending" ? waitForDecision(p.client, created.id, 120_000) : created;
}

function speechSegments(asset: Record<string, any>): any[] {
  return asset.report.media.segments.filter((s: any) => s.source === "speech");
}

/** The spoken threat was heard and its transcript, not anything else, carries the violence flag. */
function expectRejectedForSpokenThreat(asset: Record<string, any>) {
  expect(asset).toMatchObject({ status: "rejected", moderationAction: "hide" });
  expect(asset.rejectionNote).toMatch(/violence/);
  expect(asset.report.media.audioTranscribed).toBe(true);
  expect(asset.extractedText).toMatch(/\bkill\b/);
  expect(asset.report.categories.violence).toMatchObject({ status: "evaluated", likelihood: expect.stringMatching(FLAGGED) });
  const flaggedSpeech = speechSegments(asset).filter((s) => FLAGGED.test(s.categories.violence?.likelihood ?? ""));
  expect(flaggedSpeech.length).toBeGreaterThan(0);
  expect(asset.report.notes.unanalysed).toBeUndefined();
}

describe.skipIf(missing !== null)(`spoken content is transcribed and classified${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it(`a spoken threat in an MP3 ("${THREAT.text}") ends rejected for violence`, async () => {
    const mp3 = await speechAsMp3(await speakToWav(dir, "threat", THREAT.text));
    const asset = await upload("threat.mp3", "audio/mpeg", mp3);
    expectRejectedForSpokenThreat(asset);
    expect(asset.report.media.sampledFrames).toBe(0);
  }, 150_000);

  it("the same threat as the soundtrack of a video ends rejected for violence; its frames are judged too", async () => {
    const mp4 = await speechAsVideo(await speakToWav(dir, "threat-video", THREAT.text));
    const asset = await upload("threat.mp4", "video/mp4", mp4);
    expectRejectedForSpokenThreat(asset);
    expect(asset.report.media.sampledFrames).toBeGreaterThan(0);
    expect(asset.report.media.segments.some((s: any) => s.source === "frame" && s.categories.sexual.status === "evaluated")).toBe(true);
  }, 150_000);

  it(`a benign spoken sentence ("${BENIGN.text}") is heard and not flagged`, async () => {
    const mp3 = await speechAsMp3(await speakToWav(dir, "benign", BENIGN.text));
    const asset = await upload("benign.mp3", "audio/mpeg", mp3);
    expect(asset.report.media.audioTranscribed).toBe(true);
    // Heard as speech (so the text categories were judged on words, not skipped as silence).
    expect(speechSegments(asset).length).toBeGreaterThan(0);
    expect(asset.extractedText).toMatch(/\b(dinner|week)\b/);
    expect(asset.report.flagged).toBe(false);
    expect(asset.report.categories.violence).toMatchObject({ status: "evaluated" });
    expect(asset.report.categories.violence.likelihood).not.toMatch(FLAGGED);
    expect(asset.status).toBe("approved");
  }, 150_000);
});
