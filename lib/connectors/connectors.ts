import { assertSameProject, type ProjectScope } from "@/lib/auth/authorize";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { config } from "@/lib/core/config";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Connector as ConnectorRow, Prisma } from "@/lib/db/generated/client";
import type { CreateConnectorBody, ListConnectorsQuery, UpdateConnectorBody } from "./schemas";
import { generateSecret } from "./secrets";
import { serializeConnector } from "./serialize";
import { assertConnectorUrlAllowed } from "./url-policy";

/**
 * Connectors of a project: create, read, change, delete, rotate the signing secret, turn on and
 * off. Deliveries (listing, replay, test messages) are in ./deliveries.ts; sending is the delivery
 * side's (./delivery/).
 */

type Tx = Prisma.TransactionClient;

/** A `request/validation-failed` for one body field found outside zod, worded like zod's. */
function bodyFieldError(field: string, message: string): ApiError {
  return new ApiError("request/validation-failed", `Invalid request: body.${field}: ${message}`);
}

/** Each value once, in first-seen order; `keyOf` says which values count as the same. */
export function unique(values: readonly string[], keyOf: (value: string) => string = (v) => v): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = keyOf(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const uniqueRecipients = (list: readonly string[]) => unique(list, (address) => address.toLowerCase());

/** The connector, if it exists (404) and belongs to the key's project (403, as folders answer). */
export async function requireConnector(key: ProjectScope, connectorId: string): Promise<ConnectorRow> {
  const connector = await db().connector.findUnique({ where: { id: connectorId } });
  if (!connector) throw new ApiError("connector/not-found");
  assertSameProject(key, connector.projectId);
  return connector;
}

export async function listConnectors(projectId: string, query: ListConnectorsQuery) {
  const where = { projectId };
  const skip = query.pageIndex * query.pageSize;
  const [total, rows] = await db().$transaction([
    db().connector.count({ where }),
    db().connector.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip, take: query.pageSize }),
  ]);
  return { items: rows.map((row) => serializeConnector(row)), total, hasMore: skip + rows.length < total };
}

export async function createConnector(projectId: string, body: CreateConnectorBody) {
  const eventTypes = unique(body.eventTypes ?? []);
  let target: { url: string | null; recipients: string[] };
  if (body.type === "email") {
    if (!config().connectors.smtp.url) throw new ApiError("connector/email-not-configured");
    target = { url: null, recipients: uniqueRecipients(body.recipients) };
  } else {
    assertConnectorUrlAllowed(body.url, config().allowPrivateNetworks);
    target = { url: body.url, recipients: [] };
  }
  const row = await db().connector.create({
    data: { projectId, type: body.type, name: body.name, ...target, eventTypes, secret: generateSecret() },
  });
  return serializeConnector(row, { withSecret: true, fullUrl: true });
}

/** What a PATCH changes, after the rules zod cannot check (they depend on the stored type). */
function changesFor(connector: ConnectorRow, body: UpdateConnectorBody): Prisma.ConnectorUpdateInput {
  if (body.type !== undefined && body.type !== connector.type) {
    throw bodyFieldError("type", `a connector's type cannot change (it is "${connector.type}"); create a new connector instead`);
  }
  const data: Prisma.ConnectorUpdateInput = {};
  if (body.name !== undefined) data.name = body.name;
  if (body.eventTypes !== undefined) data.eventTypes = unique(body.eventTypes);
  if (body.url !== undefined) {
    if (connector.type === "email") throw bodyFieldError("url", "an email connector has no url (send recipients)");
    assertConnectorUrlAllowed(body.url, config().allowPrivateNetworks);
    data.url = body.url;
  }
  if (body.recipients !== undefined) {
    if (connector.type !== "email") throw bodyFieldError("recipients", `a ${connector.type} connector has no recipients (send url)`);
    data.recipients = uniqueRecipients(body.recipients);
  }
  return data;
}

export async function updateConnector(connector: ConnectorRow, body: UpdateConnectorBody) {
  const row = await db().connector.update({ where: { id: connector.id }, data: changesFor(connector, body) }).catch(notFoundIfGone);
  return serializeConnector(row);
}

/** Deleting a connector deletes its deliveries and their attempts (foreign keys cascade). */
export async function deleteConnector(connector: ConnectorRow) {
  await db().connector.delete({ where: { id: connector.id } }).catch(notFoundIfGone);
  return {};
}

/**
 * A new signing secret. The one it replaces keeps signing (deliveries carry both signatures) for
 * `connectors.secretGraceMs`; a secret replaced earlier is dropped at once. Runs under the row's
 * lock so two concurrent rotations cannot both keep the same previous secret.
 */
export async function rotateSecret(connector: ConnectorRow) {
  const graceMs = config().connectors.secretGraceMs;
  const row = await db().$transaction(async (tx) => {
    const current = await lockConnector(tx, connector.id);
    const now = Date.now();
    return tx.connector.update({
      where: { id: current.id },
      data: {
        secret: generateSecret(),
        previousSecret: graceMs > 0 ? current.secret : null,
        previousSecretExpiresAt: graceMs > 0 ? new Date(now + graceMs) : null,
      },
    });
  });
  return serializeConnector(row, { withSecret: true });
}

/** Turns a connector on: clears the reason it was off and its run of failures. No-op when on. */
export async function enableConnector(connector: ConnectorRow) {
  const row = await db().$transaction(async (tx) => {
    const current = await lockConnector(tx, connector.id);
    if (current.enabled) return current;
    return tx.connector.update({
      where: { id: current.id },
      data: { enabled: true, disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null },
    });
  });
  return serializeConnector(row);
}

/** Who turned a connector off, as its disabledReason says: an API key or a person in the portal. */
export type ConnectorDisabler = { apiKey: Pick<AuthenticatedKey, "id"> } | { memberName: string };

/** Turns a connector off, naming who did it. No-op when already off (the first reason stays). */
export async function disableConnector(connector: ConnectorRow, by: ConnectorDisabler) {
  const reason = "apiKey" in by ? `Turned off by API key ${await keyLabel(by.apiKey)}` : `Turned off by ${by.memberName} in the portal`;
  const row = await db().$transaction(async (tx) => {
    const current = await lockConnector(tx, connector.id);
    if (!current.enabled) return current;
    return tx.connector.update({ where: { id: current.id }, data: { enabled: false, disabledAt: new Date(), disabledReason: reason } });
  });
  return serializeConnector(row);
}

/** The key's name, or its prefix (`sieve_ab12…`) when it has none. */
async function keyLabel(key: Pick<AuthenticatedKey, "id">): Promise<string> {
  const found = await db().apiKey.findUnique({ where: { id: key.id }, select: { name: true, prefix: true } });
  if (found?.name) return `"${found.name}"`;
  return found ? `${found.prefix}…` : key.id;
}

/** The connector's row, locked until the transaction ends; 404 when it was deleted meanwhile. */
export async function lockConnector(tx: Tx, connectorId: string): Promise<ConnectorRow> {
  await tx.$queryRaw`SELECT id FROM connectors WHERE id = ${connectorId}::uuid FOR UPDATE`;
  const current = await tx.connector.findUnique({ where: { id: connectorId } });
  if (!current) throw new ApiError("connector/not-found");
  return current;
}

/** Prisma's "record to update/delete not found" (P2025): the connector went away meanwhile. */
function notFoundIfGone(error: unknown): never {
  if ((error as { code?: string }).code === "P2025") throw new ApiError("connector/not-found");
  throw error;
}
