/**
 * The one error class and the closed list of error codes. The HTTP status comes from the code, so
 * domain code throws `new ApiError("folder/not-found")` and never thinks about HTTP.
 */
export const ERROR_CODES = {
  // Spec codes
  "auth/missing-token": { status: 401, message: "No API key was sent (X-Api-Key header)." },
  "auth/invalid-api-key": { status: 401, message: "The API key is invalid, revoked or expired." },
  "auth/project-mismatch": { status: 403, message: "The API key belongs to a different project." },
  // Portal (session) authentication.
  "auth/not-signed-in": { status: 401, message: "Sign in to continue (the portal session is missing or has expired)." },
  "auth/invalid-credentials": { status: 401, message: "The email or password is incorrect." },
  "auth/cross-site-request": { status: 403, message: "The request did not come from the portal's own pages." },
  "project/not-found": { status: 404, message: "Project not found." },
  "folder/not-found": { status: 404, message: "Folder not found." },
  "batch/not-found": { status: 404, message: "Batch operation not found." },
  "asset/not-found": { status: 404, message: "Asset not found." },
  "folder/duplicate-name": { status: 409, message: "A folder with this name already exists here." },
  "folder/not-empty": { status: 409, message: "The folder is not empty." },
  "folder/parent-cycle": { status: 409, message: "A folder cannot be moved into itself or one of its descendants." },
  "lens/version-conflict": { status: 409, message: "A lens update needs a version greater than the current one." },
  "events/invalid-cursor": { status: 400, message: "The cursor is invalid." },
  "asset/not-available": { status: 403, message: "The asset is not available." },
  "asset/invalid-transform": { status: 400, message: "Malformed or unknown transform selector." },
  "asset/invalid-transform-options": { status: 400, message: "Transform options do not match the option schema." },
  "asset/safety-held": { status: 423, message: "Access to this asset is restricted by a safety hold." },
  "asset/update-failed": { status: 500, message: "The asset could not be updated." },
  // Ours (documented in docs/api.md)
  "auth/insufficient-permissions": { status: 403, message: "The API key lacks the permission this endpoint needs." },
  "request/malformed-json": { status: 400, message: "The request body is not valid JSON." },
  "request/validation-failed": { status: 400, message: "The request is invalid." },
  "request/route-not-found": { status: 404, message: "No such endpoint." },
  "request/method-not-allowed": { status: 405, message: "This method is not allowed on this endpoint." },
  "request/body-too-large": { status: 413, message: "The request body is too large." },
  "request/header-too-large": { status: 431, message: "The request line or headers are too large." },
  "rate-limit/exceeded": { status: 429, message: "Too many requests; retry after the time in Retry-After." },
  "idempotency/invalid-key": { status: 400, message: "The Idempotency-Key header must be 1 to 255 printable characters." },
  "idempotency/request-in-progress": { status: 409, message: "A request with this Idempotency-Key is still being processed." },
  "idempotency/key-reused": { status: 422, message: "This Idempotency-Key was used with a different request." },
  "asset/duplicate-external-id": { status: 409, message: "Another asset in this project has this externalId." },
  "asset/invalid-state": { status: 409, message: "The asset is not in a state that allows this operation." },
  "asset/not-retryable": { status: 409, message: "Only assets in status error can be retried." },
  "asset/url-not-allowed": { status: 422, message: "The URL points to an address that is not allowed." },
  "asset/url-fetch-failed": { status: 422, message: "The URL could not be fetched." },
  "upload/allowance-exhausted": { status: 402, message: "The free upload allowance of the project owner is used up." },
  "upload/too-large": { status: 413, message: "The content is larger than allowed for its type." },
  "upload/image-requires-multipart": { status: 413, message: "Images of 10 MB or more must be uploaded with multipart upload." },
  "upload/empty-content": { status: 400, message: "The content is empty." },
  "upload/invalid-content": { status: 400, message: "The content could not be decoded." },
  "upload/missing-header": { status: 400, message: "A required upload header is missing or wrong." },
  "upload/size-mismatch": { status: 400, message: "The uploaded size does not match the declared size." },
  "upload/part-out-of-order": { status: 409, message: "Parts must be sent in order." },
  "upload/not-in-progress": { status: 409, message: "The asset has no multipart upload in progress." },
  "upload/expired": { status: 410, message: "The multipart upload expired." },
  "asset/transform-failed": { status: 500, message: "The transform could not be applied to this asset's content." },
  "asset/no-preview": { status: 404, message: "This asset has no preview." },
  "request/range-not-satisfiable": { status: 416, message: "The requested byte range is outside the file." },
  "event/not-found": { status: 404, message: "Event not found." },
  "connector/not-found": { status: 404, message: "Connector not found." },
  "delivery/not-found": { status: 404, message: "Delivery not found." },
  "connector/url-not-allowed": { status: 422, message: "The connector URL points to an address that is not allowed." },
  "connector/email-not-configured": { status: 422, message: "Email connectors need SMTP settings (SMTP_URL) on the server." },
  "connector/disabled": { status: 409, message: "The connector is turned off; enable it first." },
  "api-key/not-found": { status: 404, message: "API key not found." },
  "member/not-found": { status: 404, message: "This person is not a member of the project." },
  "member/owner-protected": { status: 409, message: "The project's owner stays an admin: they cannot be removed or given another role." },
  "member/last-admin": { status: 409, message: "A project needs at least one admin: make someone else an admin first." },
  "member/already-member": { status: 409, message: "You are already a member of this project." },
  "invitation/not-found": { status: 404, message: "Invitation not found." },
  "invitation/unusable": { status: 410, message: "This invitation link has expired, was already used, or was revoked." },
  "asset/invalid-transition": { status: 409, message: "The asset's status does not allow this review decision." },
  "internal/unexpected": { status: 500, message: "An unexpected error occurred." },
  "service/unavailable": { status: 503, message: "A dependency of the service is unavailable." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options?: { headers?: Record<string, string>; cause?: unknown }) {
    super(message ?? ERROR_CODES[code].message, { cause: options?.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.headers = options?.headers ?? {};
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError || (error instanceof Error && error.name === "ApiError" && "code" in error);
}

/** The message of anything thrown (Error or not), for logs, notes and wrapped errors. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
