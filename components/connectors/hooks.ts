"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type {
  CreateConnectorRequest,
  PortalConnector,
  PortalConnectorList,
  PortalConnectorWithSecret,
  PortalDelivery,
  PortalDeliveryPage,
  UpdateConnectorRequest,
} from "@/lib/portal/types";
import { portalFetch } from "@/components/portal/portal-fetch";

/** React Query hooks of the connectors page; every change refreshes the list and the deliveries. */

export const connectorKeys = {
  all: (projectId: string) => ["portal", "connectors", projectId] as const,
  list: (projectId: string) => ["portal", "connectors", projectId, "list"] as const,
  deliveries: (projectId: string, connectorId: string, pageIndex: number) => ["portal", "connectors", projectId, "deliveries", connectorId, pageIndex] as const,
};

/** Room for every connector a project realistically has; the page says when there are more. */
const LIST_PAGE_SIZE = 100;
export const DELIVERIES_PAGE_SIZE = 10;

/**
 * Body-less writes still send `{}` as JSON: the portal's CSRF check (lib/http/session-auth.ts)
 * wants every write to be JSON, and routes without a declared body ignore it.
 */
const NO_BODY_POST = { method: "POST", json: {} };
const NO_BODY_DELETE = { method: "DELETE", json: {} };

const base = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}/connectors`;
const one = (projectId: string, connectorId: string) => `${base(projectId)}/${encodeURIComponent(connectorId)}`;

export function useConnectors(projectId: string) {
  return useQuery({
    queryKey: connectorKeys.list(projectId),
    queryFn: ({ signal }) => portalFetch<PortalConnectorList>(`${base(projectId)}?pageSize=${LIST_PAGE_SIZE}`, { signal }),
  });
}

/** How often an open log looks again while a delivery on it is pending (retries move it on). */
const PENDING_DELIVERIES_POLL_MS = 3000;
/** How often an open log's first page looks for new deliveries while none is pending. */
const NEW_DELIVERIES_POLL_MS = 10_000;

export function useDeliveries(projectId: string, connectorId: string, pageIndex: number) {
  const client = useQueryClient();
  const deliveries = useQuery({
    queryKey: connectorKeys.deliveries(projectId, connectorId, pageIndex),
    queryFn: ({ signal }) =>
      portalFetch<PortalDeliveryPage>(`${one(projectId, connectorId)}/deliveries?pageSize=${DELIVERIES_PAGE_SIZE}&pageIndex=${pageIndex}`, { signal }),
    // New deliveries appear on the first page (newest first) whenever events happen.
    refetchInterval: (query) => {
      if (query.state.data?.items.some((d) => d.status === "pending")) return PENDING_DELIVERIES_POLL_MS;
      return pageIndex === 0 ? NEW_DELIVERIES_POLL_MS : false;
    },
  });
  // Attempts move their connector's failure run, last error and last success, which its card shows
  // from the list: when the log changes (a new object only then: structural sharing), so does the list.
  const { data } = deliveries;
  useEffect(() => {
    if (data) void client.invalidateQueries({ queryKey: connectorKeys.list(projectId), exact: true });
  }, [client, data, projectId]);
  return deliveries;
}

/** A mutation whose success refreshes everything of the project's connectors. */
function useConnectorMutation<V, R>(projectId: string, run: (variables: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSettled: () => client.invalidateQueries({ queryKey: connectorKeys.all(projectId) }),
  });
}

export function useCreateConnector(projectId: string) {
  return useConnectorMutation(projectId, (body: CreateConnectorRequest) =>
    portalFetch<PortalConnectorWithSecret>(base(projectId), { method: "POST", json: body }),
  );
}

export function useUpdateConnector(projectId: string) {
  return useConnectorMutation(projectId, ({ id, body }: { id: string; body: UpdateConnectorRequest }) =>
    portalFetch<PortalConnector>(one(projectId, id), { method: "PATCH", json: body }),
  );
}

export function useDeleteConnector(projectId: string) {
  return useConnectorMutation(projectId, (id: string) => portalFetch<Record<string, never>>(one(projectId, id), NO_BODY_DELETE));
}

export function useRotateSecret(projectId: string) {
  return useConnectorMutation(projectId, (id: string) => portalFetch<PortalConnectorWithSecret>(`${one(projectId, id)}/rotate-secret`, NO_BODY_POST));
}

export function useSetEnabled(projectId: string) {
  return useConnectorMutation(projectId, ({ id, enabled }: { id: string; enabled: boolean }) =>
    portalFetch<PortalConnector>(`${one(projectId, id)}/${enabled ? "enable" : "disable"}`, NO_BODY_POST),
  );
}

export function useTestConnector(projectId: string) {
  return useConnectorMutation(projectId, (id: string) => portalFetch<PortalDelivery>(`${one(projectId, id)}/test`, NO_BODY_POST));
}

export function useReplayDelivery(projectId: string) {
  return useConnectorMutation(projectId, ({ connectorId, deliveryId }: { connectorId: string; deliveryId: string }) =>
    portalFetch<PortalDelivery>(`${one(projectId, connectorId)}/deliveries/${encodeURIComponent(deliveryId)}/replay`, NO_BODY_POST),
  );
}
