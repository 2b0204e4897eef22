import { handle, routes } from "@/lib/http/handler";
import { portalMembersEndpoint } from "@/lib/portal/members-endpoints";
import { projectMembers } from "@/lib/portal/members";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalMembersEndpoint, ({ ctx }) => projectMembers(ctx.member)),
});
