"use client";

import { useUnreadCount } from "./hooks";

/**
 * The navigation's unread count beside "Events", polled like the inbox. Nothing while loading, on
 * an error or at zero: a count that is not known is not shown as one.
 */
export function UnreadBadge({ projectId }: { projectId: string }) {
  const { data } = useUnreadCount(projectId);
  if (!data || data.unread === 0) return null;
  const label = `${data.unread} unread${data.unreadHigh > 0 ? `, ${data.unreadHigh} of high severity` : ""}`;
  return (
    <span
      data-testid="events-unread-badge"
      className={`inline-flex min-w-5 items-center justify-center rounded-full px-1.5 text-xs font-semibold text-white ${data.unreadHigh > 0 ? "bg-red-700" : "bg-blue-700"}`}
    >
      <span aria-hidden="true">{data.unread > 999 ? "999+" : data.unread}</span>
      <span className="sr-only">{label}</span>
    </span>
  );
}
