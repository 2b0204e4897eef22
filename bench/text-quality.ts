/**
 * Text classifier quality on the labelled sets in tests/fixtures/moderation/ (in-process, no server):
 * per-category precision / recall / F1, macro-F1 and the benign false-positive rate, for the tuning
 * split (text-dev.jsonl) and the held-out split (text-heldout.jsonl) separately.
 * A category counts as detected when its likelihood is `likely` or `very-likely` (score ≥ 0.6).
 *
 * `npx tsx bench/text-quality.ts`, or `BENCH_ONLY=text-quality npm run bench`.
 * TEXT_QUALITY_MISSES=1 lists the dev split's misses and false positives (for tuning); the held-out
 * split is only ever summarised, never listed, so that nobody tunes on it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { likelihoodForScore } from "@/lib/moderation/report";
import { TEXT_CATEGORIES, TEXT_LEXICON_VERSION, classifyText, type TextCategory } from "@/lib/moderation/text/classify";

export const TEXT_QUALITY_TARGETS = { macroF1: 0.75, benignFalsePositiveRate: 0.03 } as const;

export interface LabelledText {
  text: string;
  categories: TextCategory[];
  qualifiers?: Partial<Record<TextCategory, string[]>>;
  kind: "harmful" | "hard-negative" | "benign";
  topic?: string;
  context?: string;
}

export interface CategoryMetrics {
  support: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface QualityReport {
  items: number;
  perCategory: Record<TextCategory, CategoryMetrics>;
  macroF1: number;
  benignItems: number;
  benignFalsePositives: number;
  benignFalsePositiveRate: number;
  hardNegativeFalsePositiveRate: number;
  microsPerItem: number;
  misses: { text: string; missed: TextCategory[]; extra: TextCategory[] }[];
}

const FIXTURES = path.join(process.cwd(), "tests/fixtures/moderation");
export const TEXT_SETS = { dev: path.join(FIXTURES, "text-dev.jsonl"), heldout: path.join(FIXTURES, "text-heldout.jsonl") } as const;

export function loadLabelledTexts(file: string): LabelledText[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as LabelledText);
}

/** The categories a text is flagged for: likelihood `likely` or `very-likely`. */
export function detectedCategories(text: string): TextCategory[] {
  const result = classifyText(text);
  return TEXT_CATEGORIES.filter((c) => {
    const likelihood = likelihoodForScore(result.categories[c].score);
    return likelihood === "likely" || likelihood === "very-likely";
  });
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export function evaluateTexts(items: readonly LabelledText[]): QualityReport {
  const counts = Object.fromEntries(TEXT_CATEGORIES.map((c) => [c, { tp: 0, fp: 0, fn: 0, support: 0 }])) as Record<
    TextCategory,
    { tp: number; fp: number; fn: number; support: number }
  >;
  let benignItems = 0;
  let benignFalsePositives = 0;
  let hardNegatives = 0;
  let hardNegativeFalsePositives = 0;
  const misses: QualityReport["misses"] = [];
  const started = process.hrtime.bigint();
  for (const item of items) {
    const detected = new Set(detectedCategories(item.text));
    const truth = new Set(item.categories);
    for (const c of TEXT_CATEGORIES) {
      const counter = counts[c];
      if (truth.has(c)) counter.support++;
      if (truth.has(c) && detected.has(c)) counter.tp++;
      else if (detected.has(c)) counter.fp++;
      else if (truth.has(c)) counter.fn++;
    }
    if (truth.size === 0) {
      benignItems++;
      if (detected.size > 0) benignFalsePositives++;
      if (item.kind === "hard-negative") {
        hardNegatives++;
        if (detected.size > 0) hardNegativeFalsePositives++;
      }
    }
    const missed = [...truth].filter((c) => !detected.has(c));
    const extra = [...detected].filter((c) => !truth.has(c));
    if (missed.length > 0 || extra.length > 0) misses.push({ text: item.text, missed, extra });
  }
  const elapsedMicros = Number(process.hrtime.bigint() - started) / 1000;
  const perCategory = {} as Record<TextCategory, CategoryMetrics>;
  for (const c of TEXT_CATEGORIES) {
    const { tp, fp, fn, support } = counts[c];
    const precision = ratio(tp, tp + fp);
    const recall = ratio(tp, tp + fn);
    const f1 = ratio(2 * precision * recall, precision + recall);
    perCategory[c] = { support, truePositives: tp, falsePositives: fp, falseNegatives: fn, precision, recall, f1 };
  }
  const macroF1 = TEXT_CATEGORIES.reduce((sum, c) => sum + perCategory[c].f1, 0) / TEXT_CATEGORIES.length;
  return {
    items: items.length,
    perCategory,
    macroF1,
    benignItems,
    benignFalsePositives,
    benignFalsePositiveRate: ratio(benignFalsePositives, benignItems),
    hardNegativeFalsePositiveRate: ratio(hardNegativeFalsePositives, hardNegatives),
    microsPerItem: ratio(elapsedMicros, items.length),
    misses,
  };
}

const pct = (n: number) => `${(n * 100).toFixed(1)}%`.padStart(6);
const num = (n: number) => n.toFixed(2);

function printReport(name: string, report: QualityReport): void {
  console.log(`  ${name}: ${report.items} items, ${report.benignItems} benign`);
  console.log(`    ${"category".padEnd(18)} ${"n".padStart(3)}   P      R      F1`);
  for (const c of TEXT_CATEGORIES) {
    const m = report.perCategory[c];
    console.log(`    ${c.padEnd(18)} ${String(m.support).padStart(3)}  ${num(m.precision)}   ${num(m.recall)}   ${num(m.f1)}`);
  }
  const f1Ok = report.macroF1 >= TEXT_QUALITY_TARGETS.macroF1 ? "ok" : "BELOW TARGET";
  const fpOk = report.benignFalsePositiveRate <= TEXT_QUALITY_TARGETS.benignFalsePositiveRate ? "ok" : "ABOVE TARGET";
  console.log(`    macro-F1 ${num(report.macroF1)} (target ≥ ${TEXT_QUALITY_TARGETS.macroF1}: ${f1Ok})`);
  console.log(
    `    benign false positives ${pct(report.benignFalsePositiveRate)} (${report.benignFalsePositives}/${report.benignItems}; target ≤ ${pct(TEXT_QUALITY_TARGETS.benignFalsePositiveRate).trim()}: ${fpOk}); hard negatives ${pct(report.hardNegativeFalsePositiveRate).trim()}`,
  );
  console.log(`    ${report.microsPerItem.toFixed(0)} µs per text`);
}

/** The bench part: prints both splits. Cheap (well under a second), so it runs in every bench. */
export function benchTextQuality(): { dev: QualityReport; heldout: QualityReport } {
  console.log(`\ntext quality (${TEXT_LEXICON_VERSION}; detected = likely or very-likely)`);
  // Warm up the compiled patterns so the timing reflects steady state.
  classifyText("warm up the classifier once");
  const dev = evaluateTexts(loadLabelledTexts(TEXT_SETS.dev));
  const heldout = evaluateTexts(loadLabelledTexts(TEXT_SETS.heldout));
  printReport("dev (tuning split)", dev);
  printReport("held-out (never tuned on)", heldout);
  if (process.env.TEXT_QUALITY_MISSES === "1") {
    console.log("\n  dev misses / false positives:");
    for (const m of dev.misses) console.log(`    -${m.missed.join(",")} +${m.extra.join(",")} | ${m.text}`);
  }
  return { dev, heldout };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) benchTextQuality();
