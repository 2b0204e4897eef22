import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { OpenApiDocument } from "@/lib/openapi/document";

/**
 * Checks requests and responses against the OpenAPI document with an independent validator (Ajv,
 * JSON Schema 2020-12), not with the zod schemas the document is generated from. The HTTP tests'
 * client runs every response through it (tests/http/support.ts), so the whole suite checks that
 * the document tells the truth: the status is documented for the operation, an error's code is
 * one of the operation's `x-error-codes` with that status, and the body validates against the
 * response schema. A 2xx answer also checks the other way: the document accepts the JSON request.
 */

/** The document is walked as plain JSON. */
type Json = Record<string, any>;

export interface Exchange {
  method: string;
  /** The path below the API base (`/assets/...`), with or without a query string. */
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body, or the text of another body. */
  body: unknown;
  /** The JSON request body sent, when there was one. */
  requestJson?: unknown;
}

const DOCUMENT_ID = "https://sieve.invalid/openapi.json";
const METHODS = ["get", "put", "post", "patch", "delete"];

/** A JSON pointer token (RFC 6901) inside a URI fragment. */
const pointerToken = (token: string) => encodeURIComponent(token.replace(/~/g, "~0").replace(/\//g, "~1"));

export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; segments: string[] }[];
  private readonly codeStatus: Map<string, number>;

  constructor(private readonly document: OpenApiDocument) {
    // strict: false because the document is not itself a schema (openapi, info, paths, x-...).
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(structuredClone(document) as Json, DOCUMENT_ID);
    this.templates = Object.keys(document.paths).map((template) => ({ template, segments: template.split("/") }));
    this.codeStatus = new Map(document["x-error-codes"].map((e) => [e.code, e.status]));
  }

  /** The documented operation of a request: the path template with most literal segments that matches. */
  operationOf(method: string, path: string): { template: string; operation: Json } | undefined {
    const segments = path.split("?")[0]!.split("/");
    let best: { template: string; literal: number } | undefined;
    for (const { template, segments: parts } of this.templates) {
      if (parts.length !== segments.length || !this.document.paths[template]?.[method.toLowerCase()]) continue;
      let literal = 0;
      const matches = parts.every((part, i) => {
        if (/^\{[^}]+\}$/.test(part)) return segments[i] !== "";
        if (part === segments[i]) literal++;
        return part === segments[i];
      });
      if (matches && (!best || literal > best.literal)) best = { template, literal };
    }
    if (!best) return undefined;
    return { template: best.template, operation: this.document.paths[best.template]![method.toLowerCase()] as Json };
  }

  /** What does not conform in one exchange (empty when everything does). */
  problems(exchange: Exchange): string[] {
    const method = exchange.method.toUpperCase();
    const where = `${method} ${exchange.path} → ${exchange.status}`;
    if (!METHODS.includes(method.toLowerCase())) return [];
    const found = this.operationOf(method, exchange.path);
    if (!found) {
      // No operation (an unknown path or method): the answer is still the documented error body.
      if (exchange.status < 400) return [`${where}: no documented operation`];
      return this.validate(this.ref("components", "schemas", "Error"), exchange.body).map((p) => `${where}: ${p}`);
    }
    const { template, operation } = found;
    const label = `${where} (${operation.operationId})`;
    const response = operation.responses?.[String(exchange.status)] as Json | undefined;
    if (!response) return [`${label}: status ${exchange.status} is not documented`];
    const problems: string[] = [];
    if (exchange.status >= 400) {
      const code = (exchange.body as { code?: unknown } | null)?.code;
      if (typeof code !== "string" || !(operation["x-error-codes"] as string[]).includes(code)) {
        problems.push(`${label}: code ${String(code)} is not in the operation's x-error-codes`);
      } else if (this.codeStatus.get(code) !== exchange.status) {
        problems.push(`${label}: code ${code} is documented with status ${this.codeStatus.get(code)}`);
      }
    }
    const mediaType = this.mediaTypeOf(response, exchange.contentType);
    if (response.content && mediaType === undefined) problems.push(`${label}: content type ${exchange.contentType} is not documented`);
    if (mediaType !== undefined && response.content[mediaType].schema) {
      const ref = this.ref("paths", template, method.toLowerCase(), "responses", String(exchange.status), "content", mediaType, "schema");
      problems.push(...this.validate(ref, exchange.body).map((p) => `${label}: ${p}`));
    }
    // An operation without a JSON body ignores one; with one, what the server took the document must accept.
    if (exchange.status < 300 && exchange.requestJson !== undefined && operation.requestBody?.content?.["application/json"]) {
      const refused = this.validate(this.ref("paths", template, method.toLowerCase(), "requestBody", "content", "application/json", "schema"), exchange.requestJson);
      problems.push(...refused.map((p) => `${label}: the server accepted a request body the document refuses: ${p}`));
    }
    return problems;
  }

  /** The reference to a part of the document, from its path of keys. */
  ref(...keys: string[]): string {
    return `${DOCUMENT_ID}#/${keys.map(pointerToken).join("/")}`;
  }

  /** Validates a value against the schema at a reference into the document; the errors, readable. */
  validate(ref: string, value: unknown): string[] {
    let validator = this.validators.get(ref);
    if (!validator) {
      validator = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "(body)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  }

  /** Validates a request body against an operation's JSON request schema (by operationId). */
  requestProblems(operationId: string, body: unknown): string[] {
    for (const [template, item] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if ((operation as Json).operationId !== operationId) continue;
        return this.validate(this.ref("paths", template, method, "requestBody", "content", "application/json", "schema"), body);
      }
    }
    throw new Error(`no operation ${operationId}`);
  }

  private mediaTypeOf(response: Json, contentType: string | null): string | undefined {
    const types = Object.keys(response.content ?? {});
    const essence = contentType?.split(";")[0]!.trim().toLowerCase();
    return types.find((t) => t === essence) ?? types.find((t) => t === "*/*");
  }
}
