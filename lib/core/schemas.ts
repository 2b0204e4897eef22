import { z } from "zod";
import { UUID_PATTERN } from "@/lib/core/ids";

/** zod primitives shared by every domain's schemas (and so by the OpenAPI document). */
export const uuid = z.string().regex(UUID_PATTERN, "must be a UUID");
