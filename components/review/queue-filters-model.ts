import type { AssetTypeName, Category, Likelihood, QueueOrder, QueueReason } from "@/lib/portal/types";

/** The queue's filter form; "" means "any". Dates are the yyyy-mm-dd of <input type="date">. */
export interface QueueFilters {
  type: AssetTypeName | "";
  category: Category | "";
  likelihood: Likelihood | "";
  folderId: string;
  reason: QueueReason | "";
  from: string;
  to: string;
  order: QueueOrder;
}

export const EMPTY_FILTERS: QueueFilters = {
  type: "",
  category: "",
  likelihood: "",
  folderId: "",
  reason: "",
  from: "",
  to: "",
  order: "newest",
};

export const PAGE_SIZE = 25;

/** The start of a local day (plus `addDays`) as ISO 8601, or null while the input holds no valid date. */
function startOfDay(date: string, addDays = 0): string | null {
  const day = new Date(`${date}T00:00:00`);
  if (Number.isNaN(day.getTime())) return null;
  day.setDate(day.getDate() + addDays);
  return day.toISOString();
}

/**
 * The queue route's query string. Dates are the reviewer's local days: "from" is the start of that
 * day; "to" is shown as inclusive ("up to and including"), while the route's bound is exclusive,
 * so the start of the next day is sent.
 */
export function queueSearchParams(filters: QueueFilters, cursor: string | null): URLSearchParams {
  const params = new URLSearchParams({ order: filters.order, limit: String(PAGE_SIZE) });
  if (filters.type) params.set("type", filters.type);
  if (filters.category) {
    params.set("category", filters.category);
    if (filters.likelihood) params.set("likelihood", filters.likelihood);
  }
  if (filters.folderId) params.set("folderId", filters.folderId);
  if (filters.reason) params.set("reason", filters.reason);
  const from = filters.from ? startOfDay(filters.from) : null;
  const to = filters.to ? startOfDay(filters.to, 1) : null;
  if (from) params.set("from", from);
  if (to) params.set("to", to);
  if (cursor) params.set("cursor", cursor);
  return params;
}

export function activeFilterCount(filters: QueueFilters): number {
  return (Object.keys(EMPTY_FILTERS) as (keyof QueueFilters)[]).filter(
    (key) => key !== "likelihood" && filters[key] !== EMPTY_FILTERS[key],
  ).length;
}
