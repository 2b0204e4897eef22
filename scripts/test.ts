/**
 * `npm test`: typecheck, lint, dependency rules, migrations and the typed API client in sync, unit
 * tests, production build, HTTP tests against a real server on an embedded PostgreSQL (every
 * response checked against the OpenAPI document), then the portal's end-to-end tests (Playwright,
 * Chromium) on the same build. Prints a final `N passed, N failed` line (counted from vitest's and
 * Playwright's JSON reports plus one per static check) and exits non-zero on any failure.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = process.cwd();
const reports = path.join(root, "reports");
mkdirSync(reports, { recursive: true });
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

let passed = 0;
let failed = 0;
const failures: string[] = [];
const failedTests: string[] = [];
const flakyTests: string[] = [];

function step(name: string, command: string, args: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  return result.status === 0;
}

function check(name: string, command: string, args: string[]) {
  if (step(name, command, args)) passed++;
  else {
    failed++;
    failures.push(name);
  }
}

type VitestReport = {
  numPassedTests: number;
  numFailedTests: number;
  testResults?: { name: string; message?: string; assertionResults?: { status: string; fullName: string; failureMessages?: string[] }[] }[];
};

/**
 * The failed tests by file and name, with the first line of their error (the CI log keeps only its
 * tail), and the tests that passed only when run again (vitest keeps the first run's errors).
 */
function vitestTroubles(report: VitestReport): { failed: string[]; flaky: string[] } {
  const failed: string[] = [];
  const flaky: string[] = [];
  for (const file of report.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name);
    const tests = file.assertionResults ?? [];
    for (const test of tests) {
      const line = `${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`;
      if (test.status === "failed") failed.push(line);
      else if (test.status === "passed" && test.failureMessages?.length) flaky.push(line);
    }
    if (!tests.some((test) => test.status === "failed") && file.message) failed.push(`${where}: ${firstLine(file.message)}`);
  }
  return { failed, flaky };
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n", 1)[0]?.slice(0, 300) ?? "";
}

function vitest(project: string) {
  const report = path.join(reports, `vitest-${project}.json`);
  const ok = step(`vitest ${project}`, bin("vitest"), ["run", "--project", project], { VITEST_JSON_REPORT: report });
  if (!existsSync(report)) {
    failed++;
    failures.push(`vitest ${project} (no report)`);
    return;
  }
  const summary = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
  passed += summary.numPassedTests;
  const troubles = vitestTroubles(summary);
  failedTests.push(...troubles.failed);
  flakyTests.push(...troubles.flaky);
  failed += summary.numFailedTests;
  if (summary.numFailedTests > 0 || !ok) failures.push(`vitest ${project}`);
  if (!ok && summary.numFailedTests === 0) {
    failed++; // a suite that failed to load, or an unhandled error, counts too
    failedTests.push(`vitest ${project}: no test failed, yet vitest did (an unhandled error or a file that did not load: see "Unhandled" or "FAIL" above)`);
  }
}

/** Playwright (e2e/, playwright.config.ts): its JSON reporter writes reports/playwright.json. */
function playwright() {
  const report = path.join(reports, "playwright.json");
  rmSync(report, { force: true });
  const ok = step("playwright e2e", bin("playwright"), ["test"]);
  if (!existsSync(report)) {
    failed++;
    failures.push("playwright e2e (no report)");
    return;
  }
  const summary = JSON.parse(readFileSync(report, "utf8")) as { stats: { expected: number; unexpected: number; flaky: number } };
  passed += summary.stats.expected + summary.stats.flaky;
  failed += summary.stats.unexpected;
  if (summary.stats.unexpected > 0 || !ok) failures.push("playwright e2e");
  if (!ok && summary.stats.unexpected === 0) failed++; // global setup or a spec file that failed to load
}

const only = process.argv.slice(2);
const wants = (name: string) => only.length === 0 || only.includes(name);

if (wants("typecheck")) check("typecheck", bin("tsc"), ["--noEmit", "-p", "."]);
if (wants("lint")) check("lint", bin("eslint"), ["--max-warnings=0", "."]);
// .dependency-cruiser.cjs: layers, no cycles, one owner for the Inngest client (README "Architecture").
if (wants("dependencies")) {
  check("dependency rules", bin("depcruise"), ["lib", "app", "inngest", "components", "scripts", "server.ts", "--config", ".dependency-cruiser.cjs", "--output-type", "err"]);
}
if (wants("migrations")) check("migrations match the schema", bin("tsx"), ["scripts/new-migration.ts", "--check"]);
// lib/client/generated/openapi.ts is regenerated from the OpenAPI document and compared.
if (wants("client")) check("typed client matches the OpenAPI document", bin("tsx"), ["scripts/generate-client.ts", "--check"]);
if (wants("unit")) vitest("unit");
// One production build for the HTTP tests and the end-to-end tests (which run after them).
let built: boolean | undefined;
function build(): boolean {
  if (built === undefined) {
    built = step("next build", bin("next"), ["build"]);
    if (!built) {
      failed++;
      failures.push("next build");
    }
  }
  return built;
}
if (wants("http") && build()) vitest("http");
if (wants("e2e") && build()) playwright();

if (flakyTests.length) console.log(`\nPassed only when run again (flaky, to be fixed):\n${flakyTests.map((line) => `  ${line}`).join("\n")}`);
if (failedTests.length) console.log(`\nFailed tests:\n${failedTests.map((line) => `  ${line}`).join("\n")}`);
console.log(`\n${failures.length ? `Failed: ${failures.join(", ")}\n` : ""}${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
