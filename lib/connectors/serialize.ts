import type { Connector as ConnectorRow, Prisma } from "@/lib/db/generated/client";
import type { ApiConnector, ApiConnectorWithSecret, ApiDelivery } from "./schemas";

/** The Connector and Delivery objects as the API shows them (timestamps in ms since the epoch). */

const msOrNull = (date: Date | null) => (date === null ? null : date.getTime());

/**
 * A Slack incoming-webhook URL is itself the credential (whoever has it can post to the channel),
 * so reads show only its scheme, host and first path segment: `https://hooks.slack.com/services/…`.
 * Query and fragment are dropped too. The full URL is shown once, in the create response.
 */
export function maskSlackUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "…";
  }
  const first = url.pathname.split("/").find((segment) => segment !== "");
  return `${url.origin}/${first === undefined ? "" : `${first}/`}…`;
}

export interface SerializeOptions {
  /** Include the signing secret (create and rotate responses only). */
  withSecret?: boolean;
  /** Show a Slack URL unmasked (create response only). */
  fullUrl?: boolean;
  /** The clock, for hiding a previous secret that no longer signs. */
  now?: number;
}

/** The Connector object of the API, typed by its response schemas (with the secret when asked for). */
export function serializeConnector(row: ConnectorRow, options: SerializeOptions & { withSecret: true }): ApiConnectorWithSecret;
export function serializeConnector(row: ConnectorRow, options?: SerializeOptions & { withSecret?: false }): ApiConnector;
export function serializeConnector(row: ConnectorRow, options: SerializeOptions = {}): ApiConnector | ApiConnectorWithSecret {
  const now = options.now ?? Date.now();
  const previousExpires = row.previousSecret !== null ? msOrNull(row.previousSecretExpiresAt) : null;
  const url = row.url === null ? null : row.type === "slack" && !options.fullUrl ? maskSlackUrl(row.url) : row.url;
  const connector: ApiConnector = {
    id: row.id,
    projectId: row.projectId,
    type: row.type,
    name: row.name,
    url,
    recipients: row.type === "email" ? row.recipients : [],
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledAt: msOrNull(row.disabledAt),
    disabledReason: row.disabledReason,
    consecutiveFailures: row.consecutiveFailures,
    failingSince: msOrNull(row.failingSince),
    lastError: row.lastError,
    lastSuccessAt: msOrNull(row.lastSuccessAt),
    lastFailureAt: msOrNull(row.lastFailureAt),
    previousSecretExpiresAt: previousExpires !== null && previousExpires > now ? previousExpires : null,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
  return options.withSecret ? { ...connector, secret: row.secret } : connector;
}

/** What a delivery is read with: its attempts, oldest first (attempt 1 may be in its row). */
export const DELIVERY_INCLUDE = {
  log: { orderBy: { attempt: "asc" } },
} as const satisfies Prisma.ConnectorDeliveryInclude;

export type StoredDeliveryRow = Prisma.ConnectorDeliveryGetPayload<{ include: typeof DELIVERY_INCLUDE }>;

/** A stored delivery with its event's type (read apart: no foreign key joins them; deliveries.ts). */
export type DeliveryRow = StoredDeliveryRow & { event: { type: string } | null };

/** The Delivery object of the API, typed by its response schema. */
export function serializeDelivery(row: DeliveryRow): ApiDelivery {
  return {
    id: row.id,
    connectorId: row.connectorId,
    eventId: row.eventId,
    eventType: row.event?.type ?? null,
    replayOf: row.replayOf,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: msOrNull(row.nextAttemptAt),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    finishedAt: msOrNull(row.finishedAt),
    log: deliveryAttempts(row).map((a) => ({
      attempt: a.attempt,
      startedAt: a.startedAt.getTime(),
      latencyMs: a.latencyMs,
      statusCode: a.statusCode,
      error: a.error,
      responseExcerpt: a.responseExcerpt,
    })),
  };
}

type AttemptRow = Pick<DeliveryRow["log"][number], "attempt" | "startedAt" | "latencyMs" | "statusCode" | "error" | "responseExcerpt">;

/**
 * A delivery's attempts, oldest first: attempt 1 from the delivery's row when it holds it (a first
 * attempt that succeeded: lib/connectors/delivery/passes.ts), then the attempt rows.
 */
export function deliveryAttempts(row: Pick<DeliveryRow, "firstStartedAt" | "firstLatencyMs" | "firstResponseExcerpt" | "lastStatusCode" | "log">): AttemptRow[] {
  if (row.firstStartedAt === null) return row.log;
  const first: AttemptRow = {
    attempt: 1,
    startedAt: row.firstStartedAt,
    latencyMs: row.firstLatencyMs ?? 0,
    statusCode: row.lastStatusCode,
    error: null,
    responseExcerpt: row.firstResponseExcerpt,
  };
  return [first, ...row.log];
}
