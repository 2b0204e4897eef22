/** Event types, their default severity and whether they trigger in-app notifications. */
export const EVENT_TYPES = {
  "asset.uploaded": { severity: "low", notify: false },
  "asset.classified": { severity: "low", notify: false },
  "asset.flagged": { severity: "high", notify: true },
  "asset.approved": { severity: "low", notify: false },
  "asset.rejected": { severity: "high", notify: true },
  "asset.failed": { severity: "high", notify: true },
  "usage.limit-reached": { severity: "high", notify: true },
  "project.member-joined": { severity: "low", notify: false },
  "connector.failing": { severity: "high", notify: true },
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** Every event type's name (for zod enums and messages). */
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

export interface EventFact {
  key: string;
  value: string | number | boolean | null | string[];
  url?: string;
}

/** Decision snapshot of an asset at event time. */
export interface EventAssetSnapshot {
  id: string;
  externalId: string | null;
  status: "uploading" | "pending" | "approved" | "rejected" | "error";
  flagged: boolean | null;
  moderationAction: "ignore" | "alert" | "hide" | "purge" | null;
}
