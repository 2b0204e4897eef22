import { expect } from "vitest";
import { type ApiClient, expectOk, type TestProject } from "./support";

/** Helpers of the events tests (events*.test.ts, review*.test.ts, members*.test.ts). */

/** `after` with this cursor reads the feed from its very first event. */
export const START = "djEuMC4w";

export const THREAT = "I will kill you tomorrow, you worthless idiot.";
export const BENIGN = "Thanks for the lovely afternoon at the lake, see you next week!";

/** Creates a text asset decided within the request (queue=false). */
export async function createText(p: TestProject, plainText: string, name = "note.txt", extra: Record<string, unknown> = {}) {
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name, content: { type: "text/plain", plainText }, ...extra }));
}

export interface FeedRead {
  events: any[];
  cursor: string;
  pages: number;
}

/**
 * Follows the feed from `cursor` (with an optional query such as `type=asset.flagged`) until
 * `count` events arrived or `timeoutMs` passed; then reads on until hasMore is false. Events become
 * visible once every older transaction has finished, so fresh ones may need a moment.
 */
export async function follow(client: ApiClient, projectId: string, cursor: string, count: number, options: { query?: string; limit?: number; timeoutMs?: number } = {}): Promise<FeedRead> {
  const { query = "", limit = 100, timeoutMs = 10_000 } = options;
  const events: any[] = [];
  const deadline = Date.now() + timeoutMs;
  let pages = 0;
  for (;;) {
    const res = await client.get(`/projects/${projectId}/events?limit=${limit}&after=${cursor}${query ? `&${query}` : ""}`);
    const body = expectOk(res);
    expect(body.events.length).toBeLessThanOrEqual(limit);
    pages++;
    events.push(...body.events);
    cursor = body.cursor;
    if (body.hasMore) continue;
    if (events.length >= count || Date.now() > deadline) return { events, cursor, pages };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every event of the project (from the start), once at least `count` are visible. */
export async function allEvents(p: TestProject, count = 0, query = ""): Promise<any[]> {
  return (await follow(p.client, p.projectId, START, count, { query })).events;
}

/** Key order and values of an event's facts. */
export function factsOf(event: any): [string, unknown][] {
  return event.facts.map((f: any) => [f.key, f.value]);
}
