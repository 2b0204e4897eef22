import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./generated/openapi";

/**
 * A typed client of the Sieve API: openapi-fetch over the types openapi-typescript generates from
 * the OpenAPI document (lib/client/generated/openapi.ts; `npm run client:generate`, kept in sync by
 * `npm test`). Paths, parameters, bodies and responses are checked by TypeScript, e.g.
 * `(await sieve.GET("/assets/{assetId}", { params: { path: { assetId } } })).data?.report?.categories`.
 * It imports nothing else of the project, so it can be copied into another program as it is.
 */

export type { components, operations, paths } from "./generated/openapi";

type Schemas = components["schemas"];
export type Asset = Schemas["Asset"];
export type Report = Schemas["Report"];
export type CategoryEntry = Schemas["CategoryEntry"];
export type SafetyHold = Schemas["SafetyHold"];
export type Folder = Schemas["Folder"];
export type Event = Schemas["Event"];
export type Lens = Schemas["Lens"];
export type Connector = Schemas["Connector"];
export type ApiError = Schemas["Error"];

export interface SieveClientOptions {
  /** The API base URL, `{PUBLIC_URL}/v1`. */
  baseUrl: string;
  /** A project API key, sent as X-Api-Key. */
  apiKey: string;
  /** A fetch to use instead of the global one (the HTTP tests pass one that checks every response). */
  fetch?: ClientOptions["fetch"];
}

export type SieveClient = Client<paths>;

export function createSieveClient({ baseUrl, apiKey, fetch }: SieveClientOptions): SieveClient {
  return createClient<paths>({ baseUrl, headers: { "X-Api-Key": apiKey }, ...(fetch && { fetch }) });
}
