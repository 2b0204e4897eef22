import { z } from "zod";
import { EVENT_TYPE_NAMES, type EventAssetSnapshot, type EventFact } from "@/lib/events/catalogue";

/**
 * The Event object as the feed and the read-state endpoints send it (serializeEvent returns
 * `ApiEvent`), and so as the OpenAPI document describes it.
 */

export const eventFactSchema = z
  .object({
    key: z.string(),
    value: z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]),
    url: z.string().optional().describe("A link for the value (the asset in the portal, ...)"),
  })
  .meta({ id: "EventFact" });

export const eventAssetSnapshotSchema = z
  .object({
    id: z.string(),
    externalId: z.string().nullable(),
    status: z.enum(["uploading", "pending", "approved", "rejected", "error"]),
    flagged: z.boolean().nullable(),
    moderationAction: z.enum(["ignore", "alert", "hide", "purge"]).nullable(),
  })
  .meta({ id: "EventAssetSnapshot", description: "The asset's decision at event time" });

export const eventSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    userId: z.string().nullable(),
    type: z.enum(EVENT_TYPE_NAMES),
    severity: z.enum(["low", "high"]),
    title: z.string(),
    description: z.string().nullable(),
    assetId: z.string().nullable(),
    asset: eventAssetSnapshotSchema.nullable(),
    facts: z.array(eventFactSchema),
    notify: z.boolean().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    readAt: z.number().int().nullable(),
  })
  .meta({ id: "Event" });
export type ApiEvent = z.output<typeof eventSchema>;

export const eventFeedSchema = z.object({ events: z.array(eventSchema), cursor: z.string(), hasMore: z.boolean() });

/**
 * Facts and snapshots are written with the catalogue's types (lib/events/catalogue.ts) and served
 * as stored: these fail to compile when the catalogue's shapes and the documented ones differ.
 */
type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;
const _factShapeIsDocumented: SameType<EventFact, z.output<typeof eventFactSchema>> = true;
const _snapshotShapeIsDocumented: SameType<EventAssetSnapshot, z.output<typeof eventAssetSnapshotSchema>> = true;
