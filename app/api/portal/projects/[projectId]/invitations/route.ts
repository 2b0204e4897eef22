import { handle, routes } from "@/lib/http/handler";
import { portalCreateInvitationEndpoint, portalInvitationsEndpoint } from "@/lib/portal/members-endpoints";
import { inviteToProject, projectInvitations } from "@/lib/portal/members";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalInvitationsEndpoint, ({ ctx }) => projectInvitations(ctx.member)),
  POST: handle(portalCreateInvitationEndpoint, ({ body, ctx }) => inviteToProject(ctx.member, body)),
});
