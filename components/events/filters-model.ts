import type { EventType } from "@/lib/events/catalogue";

/** The inbox's filters as the form holds them ("" = any). */
export interface InboxFilters {
  type: EventType | "";
  severity: "" | "low" | "high";
  state: "" | "unread" | "read";
}

export const EMPTY_FILTERS: InboxFilters = { type: "", severity: "", state: "" };

export const isFiltered = (filters: InboxFilters) => filters.type !== "" || filters.severity !== "" || filters.state !== "";

/** The route's query string for one page. */
export function inboxSearchParams(filters: InboxFilters, cursor: string | null): string {
  const params = new URLSearchParams();
  if (filters.type) params.set("type", filters.type);
  if (filters.severity) params.set("severity", filters.severity);
  if (filters.state) params.set("unread", String(filters.state === "unread"));
  if (cursor) params.set("cursor", cursor);
  return params.toString();
}

/** Words for the catalogue's types (lib/events/catalogue.ts), for the filter and the rows. */
export const TYPE_LABELS: Record<EventType, string> = {
  "asset.uploaded": "Asset uploaded",
  "asset.classified": "Asset classified",
  "asset.flagged": "Asset flagged",
  "asset.approved": "Asset approved by a reviewer",
  "asset.rejected": "Asset rejected by a reviewer",
  "asset.failed": "Asset failed",
  "usage.limit-reached": "Usage limit reached",
  "project.member-joined": "Member joined",
  "connector.failing": "Connector failing",
};
