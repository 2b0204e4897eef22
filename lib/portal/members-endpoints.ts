import { z } from "zod";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { projectParams, uuid } from "@/lib/core/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { PORTAL_BASE, SESSION_ERRORS } from "@/lib/portal/endpoints";
import { MEMBER_ROLES } from "@/lib/projects/members";

/** The owner console's members page and invitations: project admins only. */
export const roleBody = z
  .strictObject({
    role: z.enum(MEMBER_ROLES),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .refine((list) => new Set(list).size === list.length, "must not repeat a permission")
      .optional(),
  })
  .superRefine((value, ctx) => {
    const count = value.permissions?.length ?? 0;
    if (value.role === "custom" && count === 0) ctx.addIssue({ code: "custom", path: ["permissions"], message: "a custom role needs at least one permission" });
    if (value.role !== "custom" && count > 0) ctx.addIssue({ code: "custom", path: ["permissions"], message: "only a custom role takes a permission list" });
  });

const admin = { ...PORTAL_BASE, adminOnly: true } as const;
const memberParams = projectParams.extend({ memberUserId: uuid });
const MEMBER_ERRORS = [...SESSION_ERRORS, "member/not-found", "member/owner-protected", "member/last-admin"] as const;

export const portalMembersEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalMembers",
  method: "GET",
  path: "/projects/{projectId}/members",
  summary: "The project's members with their roles",
  params: projectParams,
  errors: SESSION_ERRORS,
});
export const portalChangeMemberRoleEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalChangeMemberRole",
  method: "PATCH",
  path: "/projects/{projectId}/members/{memberUserId}",
  summary: "Change a member's role (custom: an explicit permission list)",
  params: memberParams,
  body: roleBody,
  errors: [...MEMBER_ERRORS, ...JSON_BODY_ERRORS],
});
export const portalRemoveMemberEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalRemoveMember",
  method: "DELETE",
  path: "/projects/{projectId}/members/{memberUserId}",
  summary: "Remove a member from the project",
  params: memberParams,
  errors: [...MEMBER_ERRORS],
});
export const portalInvitationsEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalInvitations",
  method: "GET",
  path: "/projects/{projectId}/invitations",
  summary: "Pending invitation links",
  params: projectParams,
  errors: SESSION_ERRORS,
});
export const portalCreateInvitationEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalCreateInvitation",
  method: "POST",
  path: "/projects/{projectId}/invitations",
  summary: "Create an invitation link with a role; the answer holds the link, shown this once",
  params: projectParams,
  body: roleBody,
  response: { status: 201, description: "See lib/portal/types.ts CreatedInvitation" },
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});
export const portalRevokeInvitationEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalRevokeInvitation",
  method: "POST",
  path: "/projects/{projectId}/invitations/{invitationId}/revoke",
  summary: "Revoke a pending invitation link",
  params: projectParams.extend({ invitationId: uuid }),
  errors: [...SESSION_ERRORS, "invitation/not-found"],
});
