import { describe, expect, it } from "vitest";
import { cdnRouteHandler } from "@/lib/cdn/adapters";

/** The Next.js route mount of the CDN (what `next dev` serves): same handler, Web Request/Response. */
describe("cdnRouteHandler", () => {
  it("answers in the spec's error form with the request id, for requests decided before any lookup", async () => {
    const unknownPath = await cdnRouteHandler(new Request("http://localhost/cdn/v1/assets/p/a/original", { headers: { "x-request-id": "rid-1" } }));
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.headers.get("x-request-id")).toBe("rid-1");
    expect(await unknownPath.json()).toEqual({ message: expect.any(String), code: "request/route-not-found", traceId: "rid-1" });

    const post = await cdnRouteHandler(new Request("http://localhost/cdn/v1/assets/p/a/content", { method: "POST" }));
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");

    const badSelector = await cdnRouteHandler(new Request("http://localhost/cdn/v1/assets/p/a/content/imageTransform[width=0]"));
    expect(badSelector.status).toBe(400);
    expect((await badSelector.json()).code).toBe("asset/invalid-transform-options");
  });
});
