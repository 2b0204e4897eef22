import { describe, expect, it } from "vitest";
import { isApiError } from "@/lib/core/errors";
import { withTransformSlot } from "@/lib/cdn/transform-slots";

describe("transform slots", () => {
  it("runs at most four at once, queues the rest, and refuses beyond the queue with 503 Retry-After", async () => {
    let running = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const job = () =>
      withTransformSlot(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        return "done";
      });
    const accepted = Array.from({ length: 4 + 64 }, job);
    const refused = await job().catch((error: unknown) => error);
    expect(isApiError(refused) && refused.code).toBe("service/unavailable");
    expect(isApiError(refused) && refused.headers["Retry-After"]).toBe("1");
    while (release.length > 0 || running > 0) {
      release.splice(0).forEach((resolve) => resolve());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await Promise.all(accepted)).toHaveLength(68);
    expect(peak).toBe(4);
    expect(await withTransformSlot(async () => "free again")).toBe("free again");
  });
});
