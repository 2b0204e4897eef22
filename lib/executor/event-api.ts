import crypto from "node:crypto";
import http from "node:http";
import { collectStream } from "@/lib/core/streams";
import type { ResolvedOptions } from "./context";
import type { EventPayload } from "./store";

/**
 * The executor's stand-in for Inngest's event API: `POST /e/<event key>` with one event or a list,
 * answered like Inngest does (`{ ids, status }`). The SDK's client sends here (INNGEST_BASE_URL).
 */

/** Inngest's own event API accepts up to 3 MiB per request (1 MiB per event on the free plan). */
const MAX_EVENT_BODY_BYTES = 3 * 1024 * 1024;

type EventApiOptions = Pick<ResolvedOptions, "eventKey" | "debug" | "log">;
/** Records the events and returns their ids (EmbeddedExecutor.sendEvents). */
type SendEvents = (events: EventPayload[]) => Promise<string[]>;

export function createEventApiServer(opts: EventApiOptions, sendEvents: SendEvents): http.Server {
  return http.createServer((req, res) => void handleEventApi(opts, sendEvents, req, res));
}

async function handleEventApi(opts: EventApiOptions, sendEvents: SendEvents, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const match = /^\/e\/([^/?]+)/.exec(req.url ?? "");
  if (req.method !== "POST" || !match) {
    if (opts.debug) opts.log(`event API: unsupported ${req.method} ${req.url}`);
    return reply(404, { error: "not found", status: 404 });
  }
  try {
    const given = Buffer.from(decodeURIComponent(match[1]!));
    const expected = Buffer.from(opts.eventKey);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return reply(401, { error: "Event key not found", status: 401 });
    const body = await collectStream(req, MAX_EVENT_BODY_BYTES, () => new Error(`event batch larger than ${MAX_EVENT_BODY_BYTES} bytes`));
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    const list = (Array.isArray(parsed) ? parsed : [parsed]) as Partial<EventPayload>[];
    const events = list.map((e): EventPayload => {
      if (!e || typeof e.name !== "string" || !e.name) throw new Error("every event needs a name");
      return { ...e, id: e.id ?? crypto.randomUUID(), name: e.name, data: e.data ?? {}, ts: e.ts ?? Date.now() };
    });
    const ids = await sendEvents(events);
    reply(200, { ids, status: 200 });
  } catch (error) {
    reply(400, { error: (error as Error).message, status: 400 });
  }
}
