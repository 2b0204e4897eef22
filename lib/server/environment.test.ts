import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { keepEnvironmentInMemory } from "./environment";

describe("process.env kept in memory", () => {
  const original = process.env;
  afterAll(() => {
    process.env = original;
  });

  it("reads, assigns (as strings, like Node), deletes, and hands changes to child processes", () => {
    process.env.SIEVE_ENV_BEFORE = "kept";
    keepEnvironmentInMemory();
    expect(process.env).not.toBe(original);
    expect(process.env.SIEVE_ENV_BEFORE).toBe("kept");
    expect(process.env.PATH).toBe(original.PATH);

    (process.env as Record<string, unknown>).SIEVE_ENV_NUMBER = 42;
    (process.env as Record<string, unknown>).SIEVE_ENV_UNDEFINED = undefined;
    expect(process.env.SIEVE_ENV_NUMBER).toBe("42");
    expect(process.env.SIEVE_ENV_UNDEFINED).toBe("undefined");
    expect(Object.entries(process.env)).toContainEqual(["SIEVE_ENV_NUMBER", "42"]);
    delete process.env.SIEVE_ENV_BEFORE;
    expect("SIEVE_ENV_BEFORE" in process.env).toBe(false);

    process.env.SIEVE_ENV_CHILD = "seen";
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(`${process.env.SIEVE_ENV_CHILD}|${process.env.SIEVE_ENV_BEFORE}`)"], { encoding: "utf8" });
    expect(child.stdout).toBe("seen|undefined");
  });

  it("is idempotent: a second call keeps the same object", () => {
    keepEnvironmentInMemory();
    const env = process.env;
    keepEnvironmentInMemory();
    expect(process.env).toBe(env);
  });
});
