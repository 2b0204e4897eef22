import { handle, routes } from "@/lib/http/handler";
import { portalCreateProjectEndpoint } from "@/lib/portal/project-endpoints";
import { createPortalProject } from "@/lib/portal/projects";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalCreateProjectEndpoint, ({ body, ctx }) => createPortalProject(ctx.user, body.name)),
});
