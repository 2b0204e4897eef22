import { z } from "zod";
import { config } from "@/lib/core/config";
import { parseJsonBody, readBodyCapped } from "@/lib/http/body";
import { isRawOrJson, type EndpointSpec, type RawBody } from "@/lib/http/endpoint";
import { HashingReader, nodeStream } from "@/lib/http/hashing-reader";
import { parseHeaders } from "@/lib/http/headers";
import { fingerprint } from "@/lib/http/idempotency";
import { parseOrThrow } from "@/lib/http/validation";

/** A request's input as the endpoint declares it, plus what idempotency needs to identify the request. */
export interface ParsedInput {
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
  /** The request's fingerprint; a raw body's digest is appended once the body has been read. */
  requestHash: string;
  /** Set when a raw body is hashed while the handler streams it. */
  rawReader: HashingReader | null;
}

/** Endpoints that declare no query parameters reject any (unknown parameters are refused everywhere). */
const NO_QUERY = z.strictObject({});

/**
 * Parses in the order errors are reported: params, query, headers, body. `checkedParams` have
 * already answered malformed ids with their not-found code. `hashBody`: an Idempotency-Key needs
 * the request's fingerprint.
 */
export async function parseInput(
  spec: EndpointSpec,
  request: Request,
  checkedParams: Record<string, string>,
  hashBody: boolean,
): Promise<ParsedInput> {
  const url = new URL(request.url);
  const params = spec.params ? parseOrThrow(spec.params, checkedParams, "params") : checkedParams;
  const query = parseOrThrow(spec.query ?? NO_QUERY, Object.fromEntries(url.searchParams), "query");
  const headers = spec.headers ? parseHeaders(spec.headers, request.headers) : {};
  return { params, query, headers, ...(await readBody(spec, request, url.search, hashBody)) };
}

type ReadBody = Pick<ParsedInput, "body" | "requestHash" | "rawReader">;

async function readBody(spec: EndpointSpec, request: Request, search: string, hashBody: boolean): Promise<ReadBody> {
  const declared = spec.body;
  if (declared === undefined) return { body: undefined, requestHash: "", rawReader: null };
  if (declared === "raw") return streamRaw(spec, request, search, hashBody, (raw) => raw);
  if (!isRawOrJson(declared)) return readJson(spec, declared, request, search, hashBody, (value) => value);
  if (isJsonRequest(request.headers)) return readJson(spec, declared.json, request, search, hashBody, (value) => ({ kind: "json", value }));
  const headers = parseHeaders(declared.rawHeaders, request.headers);
  return streamRaw(spec, request, search, hashBody, (raw) => ({ kind: "raw", body: raw, headers }));
}

/** A raw-or-JSON body is JSON when so declared by Content-Type and not marked as an upload. */
function isJsonRequest(headers: Headers): boolean {
  return /^application\/json\b/i.test(headers.get("content-type") ?? "") && headers.get("x-service-upload") === null;
}

async function readJson(
  spec: EndpointSpec,
  schema: z.ZodType,
  request: Request,
  search: string,
  hashBody: boolean,
  wrap: (value: unknown) => unknown,
): Promise<ReadBody> {
  const raw = await readBodyCapped(request, spec.maxBodyBytes ?? config().limits.maxJsonBodyBytes);
  const value = parseOrThrow(schema, parseJsonBody(raw), "body");
  return { body: wrap(value), requestHash: hashBody ? fingerprint(spec.operationId, search, raw) : "", rawReader: null };
}

/** Streams a raw body; it is hashed only when an Idempotency-Key needs its digest (storage hashes it anyway). */
function streamRaw(spec: EndpointSpec, request: Request, search: string, hashBody: boolean, wrap: (raw: RawBody) => unknown): ReadBody {
  const rawReader = hashBody ? new HashingReader(request.body) : null;
  const contentType = request.headers.get("content-type");
  const raw: RawBody = {
    stream: rawReader?.stream ?? nodeStream(request.body),
    contentType,
    contentLength: numberOrNull(request.headers.get("content-length")),
  };
  return { body: wrap(raw), requestHash: hashBody ? fingerprint(spec.operationId, search, contentType ?? "") : "", rawReader };
}

function numberOrNull(value: string | null): number | null {
  if (value === null) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
