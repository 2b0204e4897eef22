import type { DispatchedDelivery } from "@/lib/connectors/delivery/first-attempts";

/** The title of a dispatched delivery's event, as its envelope carries it. */
export function dispatchedTitle(delivery: DispatchedDelivery): string | undefined {
  const json = delivery.event?.json;
  return json === undefined ? undefined : (JSON.parse(json) as { data: { title: string } }).data.title;
}
