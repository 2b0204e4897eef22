import { createRequire } from "node:module";
import path from "node:path";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/**
 * The dependency rules (.dependency-cruiser.cjs) hold on the real tree, and each one fails on the
 * fixture tree in tests/fixtures/architecture, which breaks every rule once on purpose.
 */
const require = createRequire(import.meta.url);
const config = require(path.join(process.cwd(), ".dependency-cruiser.cjs")) as { forbidden: { name: string }[]; options: object };

async function violations(baseDir: string, roots: string[]): Promise<IViolation[]> {
  const { output } = await cruise(roots, { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
  return (output as ICruiseResult).summary.violations;
}

describe("architecture rules", () => {
  it("hold on the project", async () => {
    const found = await violations(process.cwd(), ["lib", "app", "inngest", "components", "scripts", "server.ts"]);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 60_000);

  it("each rule catches its deliberate violation", async () => {
    const found = await violations(path.join(process.cwd(), "tests/fixtures/architecture"), ["lib", "app", "inngest"]);
    const caught = new Set(found.map((v) => v.rule.name));
    expect(config.forbidden.map((r) => r.name).filter((name) => !caught.has(name))).toEqual([]);
    const pairs = found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(pairs).toContain("platform-knows-no-domain: lib/storage/uses-domain.ts → lib/assets/thing.ts");
    expect(pairs).toContain("engines-use-assets-public-surface: lib/moderation/pipeline/inner.ts → lib/assets/internal.ts");
    expect(pairs).toContain("entry-points-use-domains-not-db: app/route.ts → lib/db/client.ts");
  }, 60_000);
});

describe("file size", () => {
  it("no source or test file is over 400 lines", async () => {
    const { readdirSync, readFileSync, statSync } = await import("node:fs");
    const long: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const full = path.join(dir, entry);
        if (["node_modules", "generated", ".next", "fixtures"].includes(entry)) continue;
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.(ts|tsx|mjs|cjs)$/.test(entry)) {
          const lines = readFileSync(full, "utf8").split("\n").length - 1;
          if (lines > 400) long.push(`${path.relative(process.cwd(), full)} (${lines})`);
        }
      }
    };
    for (const dir of ["lib", "app", "inngest", "components", "scripts", "tests", "bench", "e2e"]) walk(path.join(process.cwd(), dir));
    expect(long).toEqual([]);
  });
});
