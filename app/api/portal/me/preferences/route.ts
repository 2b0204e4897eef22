import { handle, routes } from "@/lib/http/handler";
import { portalPreferencesEndpoint } from "@/lib/portal/endpoints";
import { updateReviewPreferences } from "@/lib/portal/preferences";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PUT: handle(portalPreferencesEndpoint, ({ body, ctx }) => updateReviewPreferences(ctx.user.userId, body)),
});
