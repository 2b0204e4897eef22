import { z } from "zod";
import { config } from "@/lib/core/config";
import { isRawOrJson, type EndpointSpec, type RawBody } from "@/lib/http/endpoint";
import { HashingReader, nodeStream } from "@/lib/http/hashing-reader";
import { parseHeaders } from "@/lib/http/headers";
import { finishFingerprint, fingerprint, fingerprintHash } from "@/lib/http/idempotency";
import { MAX_JSON_STRUCTURE_BYTES, readJsonBody } from "@/lib/http/json-reader";
import { largeValuesOf, restoreLargeValues } from "@/lib/http/large-values";
import { fieldError, parseOrThrow } from "@/lib/http/validation";
import { RAW_QUERY_HEADER } from "@/lib/server/raw-query";

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
  const query = parseOrThrow(spec.query ?? NO_QUERY, queryParameters(request, url), "query");
  const headers = spec.headers ? parseHeaders(spec.headers, request.headers) : {};
  return { params, query, headers, ...(await readBody(spec, request, url.search, hashBody)) };
}

/**
 * The query parameters, decoded as URLSearchParams does ('+' is a space, a stray '%' stays, the
 * last of repeated names wins), except that percent-encoded bytes that are not UTF-8 (`%FF`,
 * `%ED%A0%80`) are refused, naming the parameter, instead of silently becoming U+FFFD.
 */
function queryParameters(request: Request, url: URL): Record<string, string> {
  // The raw query from our server (Next.js re-encodes the URL's); a handler called directly has only the URL's.
  const raw = request.headers.get(RAW_QUERY_HEADER) ?? url.search.slice(1);
  const values = new Map<string, string>();
  for (const pair of raw.split("&")) {
    if (pair === "") continue;
    const at = pair.indexOf("=");
    const name = decodeQueryComponent(at < 0 ? pair : pair.slice(0, at));
    if (name === null) throw fieldError("query", [], `parameter names ${NOT_UTF8}`);
    const value = decodeQueryComponent(at < 0 ? "" : pair.slice(at + 1));
    if (value === null) throw fieldError("query", [name], NOT_UTF8);
    values.set(name, value);
  }
  return Object.fromEntries(values);
}

const NOT_UTF8 = "must be percent-encoded UTF-8";
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** application/x-www-form-urlencoded percent-decoding; null when the bytes are not UTF-8. */
function decodeQueryComponent(component: string): string | null {
  const text = component.replace(/\+/g, " ");
  if (!text.includes("%")) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === "%" ? text.slice(i + 1, i + 3) : "";
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      const code = text.codePointAt(i)!;
      if (code > 0xffff) i++;
      bytes.push(...Buffer.from(String.fromCodePoint(code), "utf8"));
    }
  }
  try {
    return STRICT_UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
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
  const hash = hashBody ? fingerprintHash(spec.operationId, search) : null;
  const maxBytes = spec.maxBodyBytes ?? config().limits.maxJsonBodyBytes;
  const { value: parsed, largeValues } = await readJsonBody(request, {
    maxBytes,
    maxStructureBytes: Math.min(maxBytes, MAX_JSON_STRUCTURE_BYTES),
    largeValues: largeValuesOf(schema),
    onChunk: hash ? (chunk) => hash.update(chunk) : undefined,
  });
  const value = parseOrThrow(schema, parsed, "body");
  restoreLargeValues(value, largeValues);
  return { body: wrap(value), requestHash: hash ? finishFingerprint(hash) : "", rawReader: null };
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
