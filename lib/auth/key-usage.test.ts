import { afterEach, describe, expect, it, vi } from "vitest";
import { noteKeyUse } from "@/lib/auth/key-usage";
import { forgetSingleton } from "@/lib/core/singleton";

const query = vi.fn((_statement: { values: unknown[] }) => Promise.resolve({ rows: [] }));
vi.mock("@/lib/db/client", () => ({ sqlPool: () => ({ query }) }));

afterEach(() => {
  query.mockClear();
  forgetSingleton("apiKeyUseRecordedAt");
});

const keysWritten = () => query.mock.calls.map(([statement]) => statement.values[0]);

describe("recording the last use of API keys", () => {
  it("writes at most once a minute per key, not once per request", () => {
    const t = 1_000_000;
    for (let i = 0; i < 50; i++) noteKeyUse("k1", t + i * 1_000);
    noteKeyUse("k2", t);
    expect(keysWritten()).toEqual(["k1", "k2"]);
    noteKeyUse("k1", t + 60_000);
    expect(keysWritten()).toEqual(["k1", "k2", "k1"]);
  });

  it("tries again on the next request when a write failed", async () => {
    query.mockImplementationOnce(() => Promise.reject(new Error("connection lost")));
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    noteKeyUse("k3", 5_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    noteKeyUse("k3", 6_000);
    expect(keysWritten()).toEqual(["k3", "k3"]);
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });
});
