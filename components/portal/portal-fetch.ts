import type { PortalErrorBody } from "@/lib/portal/types";

/** An error answered by a portal route, with the route's own code and message (or a network failure). */
export class PortalFetchError extends Error {
  readonly status: number;
  readonly code: string;
  readonly traceId: string | null;

  constructor(status: number, body: Partial<PortalErrorBody>) {
    super(body.message || `Request failed (${status})`);
    this.name = "PortalFetchError";
    this.status = status;
    this.code = body.code || "request/failed";
    this.traceId = body.traceId ?? null;
  }
}

/** Status 0 marks a request that never got an answer (offline, server down). */
export const NETWORK_ERROR_STATUS = 0;

export interface PortalFetchInit extends Omit<RequestInit, "body"> {
  /** Sent as JSON (with the Content-Type the mutation routes require). */
  json?: unknown;
}

/**
 * fetch for the portal's JSON routes: same-origin with the session cookie, JSON in and out, and
 * any non-2xx answer thrown as a PortalFetchError so React Query's error states can show the
 * route's message and code.
 */
export async function portalFetch<T>(path: string, init: PortalFetchInit = {}): Promise<T> {
  const { json, headers, ...rest } = init;
  const requestHeaders = new Headers(headers);
  requestHeaders.set("Accept", "application/json");
  if (json !== undefined) requestHeaders.set("Content-Type", "application/json");

  let response: Response;
  try {
    response = await fetch(path, {
      credentials: "same-origin",
      ...rest,
      headers: requestHeaders,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  } catch (error) {
    // An aborted query is React Query's business (it cancelled it); pass it through untouched.
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new PortalFetchError(NETWORK_ERROR_STATUS, {
      code: "network/unreachable",
      message: "Sieve could not be reached. Check your connection and try again.",
    });
  }

  if (!response.ok) throw new PortalFetchError(response.status, await readErrorBody(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

async function readErrorBody(response: Response): Promise<Partial<PortalErrorBody>> {
  try {
    const body: unknown = await response.json();
    if (body && typeof body === "object") return body as Partial<PortalErrorBody>;
  } catch {
    // Not JSON (a proxy's HTML error page): fall back to the status text below.
  }
  return { message: response.statusText ? `${response.status} ${response.statusText}` : undefined };
}

/** A message fit for an alert, whatever was thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong.";
}

export function isSessionExpired(error: unknown): boolean {
  return error instanceof PortalFetchError && error.status === 401;
}
