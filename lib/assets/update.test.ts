import { describe, expect, it } from "vitest";
import { guardUpdate } from "@/lib/assets/update";
import { isApiError } from "@/lib/core/errors";

const failWith = (error: unknown) => guardUpdate(() => Promise.reject(error));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.catch((e: unknown) => e);
  if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error.code;
}

describe("guardUpdate (asset updates and moves)", () => {
  it("turns unexpected database failures into 500 asset/update-failed", async () => {
    expect(await codeOf(failWith(new Error("deadlock detected")))).toBe("asset/update-failed");
  });

  it("keeps the meaning of known refusals", async () => {
    expect(await codeOf(failWith({ code: "P2002" }))).toBe("asset/duplicate-external-id");
    expect(await codeOf(failWith({ code: "P2025" }))).toBe("asset/not-found");
    expect(await codeOf(failWith({ code: "P2003" }))).toBe("folder/not-found");
  });
});
