import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { describe, expect, it } from "vitest";
import { generateSigningKey } from "./signing";
import { pool, eventApiUrl, eventKey, e1, newExecutor, listen, useExecutorHarness } from "./test-support";

/**
 * Syncing the app (refusing options the executor does not implement) and the key checks: signatures
 * on the serve endpoint, the event key on the event API.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("embedded executor against the SDK's serve()", () => {
  it("syncs every function of the app", () => {
    expect(e1.functionIds()).toEqual(
      expect.arrayContaining(["contract-memo", "contract-always-fails-failure", "contract-invoke-child", "contract-shared"]),
    );
  });

  it("refuses unsupported options at start(), naming the function and the option", async () => {
    const client = new Inngest({ id: "contract-bad" });
    const badUrl = await listen(
      serve({
        client,
        functions: [
          client.createFunction({ id: "fine", triggers: [{ event: "test/fine" }] }, async () => "ok"),
          client.createFunction({ id: "debounced", debounce: { period: "5s" }, triggers: [{ event: "test/debounced" }] }, async () => "ok"),
        ],
      }),
    );
    const bad = newExecutor({ serveUrl: badUrl });
    await expect(bad.start()).rejects.toThrow(/Inngest function "contract-bad-debounced" uses debounce, which the embedded executor does not implement/);
    expect(bad.functionIds()).toEqual([]);
  });

  describe("signature checks stay on", () => {
    it("an executor with a different signing key cannot even sync (401)", async () => {
      const wrong = newExecutor({ signingKey: generateSigningKey() });
      await expect(wrong.start()).rejects.toThrow(/in-band sync of .* failed with status 401/);
    });

    it("the event API refuses a wrong event key with 401", async () => {
      const response = await fetch(new URL(`e/${"0".repeat(eventKey.length)}`, eventApiUrl), {
        method: "POST",
        body: JSON.stringify([{ name: "test/memo", data: { tag: "never" } }]),
      });
      expect(response.status).toBe(401);
      const shorter = await fetch(new URL("e/short", eventApiUrl), { method: "POST", body: "[]" });
      expect(shorter.status).toBe(401);
      const wrongClient = new Inngest({ id: "contract", eventKey: "wrong-key" });
      await expect(wrongClient.send({ name: "test/memo", data: { tag: "never" } })).rejects.toThrow();
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM executor_events WHERE payload->'data'->>'tag' = 'never'`);
      expect(rows[0].n).toBe(0);
    });
  });
});
