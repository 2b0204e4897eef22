import { handle, routes } from "@/lib/http/handler";
import { portalRevokeInvitationEndpoint } from "@/lib/portal/members-endpoints";
import { revokeProjectInvitation } from "@/lib/portal/members";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalRevokeInvitationEndpoint, ({ params, ctx }) => revokeProjectInvitation(ctx.member, params.invitationId)),
});
