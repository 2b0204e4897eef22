import { handle, routes } from "@/lib/http/handler";
import { portalMeEndpoint } from "@/lib/portal/endpoints";
import { reviewPreferences } from "@/lib/portal/preferences";
import { portalProjects } from "@/lib/portal/session";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalMeEndpoint, async ({ ctx }) => ({
    user: { id: ctx.user.userId, email: ctx.user.email, name: ctx.user.name },
    preferences: await reviewPreferences(ctx.user.userId),
    projects: await portalProjects(ctx.user.userId),
  })),
});
