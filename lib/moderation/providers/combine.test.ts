import { describe, expect, it } from "vitest";
import { buildReport } from "../report";
import { DEFAULT_THRESHOLDS } from "../policy";
import { combineProviders, providerNotesJson } from "./combine";
import { ProviderError, type ClassifierProvider, type MediaKind, type ProviderResult } from "./types";
import type { Category } from "../report";

function fake(
  id: string,
  supported: Partial<Record<MediaKind, readonly Category[]>>,
  classify: (signal: AbortSignal | undefined) => Promise<ProviderResult>,
): ClassifierProvider {
  return { id, version: "1", supports: (kind) => supported[kind] ?? [], classify: (_input, { signal }) => classify(signal) };
}

const text = { kind: "text" as const, text: "hello" };
const opts = { timeoutMs: 200 };

describe("combineProviders", () => {
  it("takes the max score and qualifier per category and marks unsupported categories", async () => {
    const a = fake("a", { text: ["violence", "hate"] }, async () => ({
      categories: { violence: { score: 0.3, qualifiers: { graphic: 0.7 } }, hate: { score: 0.4 } },
    }));
    const b = fake("b", { text: ["violence"] }, async () => ({ categories: { violence: { score: 0.5, qualifiers: { graphic: 0.2, injury: 0.1 } } } }));
    const result = await combineProviders([a, b], text, opts);
    expect(result.categories.violence).toEqual({ status: "evaluated", score: 0.5, qualifiers: { graphic: 0.7, injury: 0.1 } });
    expect(result.categories.hate).toEqual({ status: "evaluated", score: 0.4 });
    for (const c of ["sexual", "self-harm", "harassment", "criminal-activity"] as const) {
      expect(result.categories[c]).toEqual({ status: "not-evaluated", reason: "not-supported" });
    }
    expect(result.providers.map((p) => [p.id, p.outcome])).toEqual([
      ["a", { status: "ok", scores: { violence: 0.3, hate: 0.4 } }],
      ["b", { status: "ok", scores: { violence: 0.5 } }],
    ]);
  });

  it("marks categories of a failing provider unavailable, or partial when another provider judged them", async () => {
    const ok = fake("ok", { text: ["violence"] }, async () => ({ categories: { violence: { score: 0.2 } } }));
    const broken = fake("broken", { text: ["violence", "hate"] }, async () => {
      throw new ProviderError("broken", "http", "HTTP 500");
    });
    const result = await combineProviders([ok, broken], text, opts);
    expect(result.categories.violence).toEqual({ status: "partial", score: 0.2 });
    expect(result.categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(result.providers[1]?.outcome).toEqual({ status: "unavailable", error: { code: "http", message: "broken: HTTP 500" } });
  });

  it("times out a provider that ignores its signal", async () => {
    const hang = fake("hang", { text: ["hate"] }, () => new Promise<ProviderResult>(() => {}));
    const started = Date.now();
    const result = await combineProviders([hang], text, { timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(result.providers[0]?.outcome).toMatchObject({ status: "unavailable", error: { code: "timeout" } });
  });

  it("aborts the provider's signal on timeout", async () => {
    let seen: AbortSignal | undefined;
    const hang = fake("hang", { text: ["hate"] }, (signal) => {
      seen = signal;
      return new Promise<ProviderResult>(() => {});
    });
    await combineProviders([hang], text, { timeoutMs: 20 });
    expect(seen?.aborted).toBe(true);
  });

  it("treats non-Error throws and out-of-range scores as unavailable", async () => {
    const weird = fake("weird", { text: ["hate"] }, () => Promise.reject("nope"));
    const bad = fake("bad", { text: ["sexual"] }, async () => ({ categories: { sexual: { score: 7 } } }));
    const result = await combineProviders([weird, bad], text, opts);
    expect(result.categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(result.categories.sexual).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(result.providers[1]?.outcome).toMatchObject({ error: { code: "malformed" } });
  });

  it("uses supports() per media kind, skips providers without support and ignores undeclared categories", async () => {
    let called = false;
    const textOnly = fake("text-only", { text: ["hate"] }, async () => {
      called = true;
      return { categories: {} };
    });
    const image = fake("image", { image: ["sexual"] }, async () => ({ categories: { sexual: { score: 0.9 }, hate: { score: 0.9 } } }));
    const result = await combineProviders([textOnly, image], { kind: "image", data: new Uint8Array([1]), mimeType: "image/png" }, opts);
    expect(called).toBe(false);
    expect(result.categories.sexual).toEqual({ status: "evaluated", score: 0.9 });
    expect(result.categories.hate).toEqual({ status: "not-evaluated", reason: "not-supported" });
    expect(result.providers[0]?.outcome).toEqual({ status: "not-applicable" });
    expect(result.providers[1]?.outcome).toEqual({ status: "ok", scores: { sexual: 0.9 }, ignored: ["hate"] });
  });

  it("a declared but omitted category counts as not judged by that provider", async () => {
    const a = fake("a", { text: ["hate"] }, async () => ({ categories: {} }));
    expect((await combineProviders([a], text, opts)).categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
  });

  it("feeds buildReport and the report notes", async () => {
    const a = fake("a", { text: ["hate"] }, async () => ({ categories: { hate: { score: 0.7 } }, details: { rules: ["r1"] } }));
    const combined = await combineProviders([a], text, opts);
    const report = buildReport({ categories: combined.categories, thresholds: DEFAULT_THRESHOLDS, notes: providerNotesJson(combined.providers) });
    expect(report.flagged).toBe(true);
    expect(report.categories.hate).toEqual({ status: "evaluated", score: 0.7, likelihood: "likely" });
    expect(report.notes).toMatchObject({ providers: [{ id: "a", version: "1", outcome: { status: "ok", details: { rules: ["r1"] } } }] });
  });

  it("reports caller cancellation as aborted", async () => {
    const controller = new AbortController();
    const p = fake("p", { text: ["hate"] }, (signal) =>
      new Promise<ProviderResult>((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))),
    );
    const pending = combineProviders([p], text, { timeoutMs: 5000, signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result.providers[0]?.outcome).toMatchObject({ status: "unavailable", error: { code: "aborted" } });
  });
});
