import { ApiError, type ErrorCode } from "@/lib/core/errors";
import { isUuid } from "@/lib/core/ids";

/** A malformed id names no resource, so it gets the resource's not-found code. */
const NOT_FOUND_BY_PARAM: Record<string, ErrorCode> = {
  projectId: "project/not-found",
  assetId: "asset/not-found",
  folderId: "folder/not-found",
  batchId: "batch/not-found",
  eventId: "event/not-found",
  connectorId: "connector/not-found",
  deliveryId: "delivery/not-found",
  keyId: "api-key/not-found",
  memberUserId: "member/not-found",
  invitationId: "invitation/not-found",
};

/** The not-found code of an id path parameter; undefined for other parameters. */
export function notFoundCodeOf(param: string): ErrorCode | undefined {
  return Object.hasOwn(NOT_FOUND_BY_PARAM, param) ? NOT_FOUND_BY_PARAM[param] : undefined;
}

/** Answers a malformed id with its not-found code and lower-cases ids; runs before `spec.params`. */
export function checkPathParams(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== "string") continue;
    const notFound = notFoundCodeOf(name);
    if (notFound && !isUuid(value)) throw new ApiError(notFound);
    params[name] = notFound ? value.toLowerCase() : value;
  }
  return params;
}
