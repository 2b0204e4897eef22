import { handle, routes } from "@/lib/http/handler";
import { portalChangeMemberRoleEndpoint, portalRemoveMemberEndpoint } from "@/lib/portal/members-endpoints";
import { changeRole, removeProjectMember } from "@/lib/portal/members";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PATCH: handle(portalChangeMemberRoleEndpoint, ({ params, body, ctx }) => changeRole(ctx.member, params.memberUserId, body)),
  DELETE: handle(portalRemoveMemberEndpoint, ({ params, ctx }) => removeProjectMember(ctx.member, params.memberUserId)),
});
