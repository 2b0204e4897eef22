import { required, type AdminCommand, type Values } from "@/lib/admin/commands";
import { createUser, setUserPassword } from "@/lib/admin/users";
import { parsePermissionList, type Permission } from "@/lib/auth/permissions";
import { isUuid } from "@/lib/core/ids";
import { addProjectMember, isMemberRole, MEMBER_ROLES, type MemberRole } from "@/lib/projects/members";


function uuidOption(values: Values, name: string): string {
  const value = required(values, name);
  if (!isUuid(value)) throw new Error(`--${name} must be a UUID`);
  return value.toLowerCase();
}

function role(values: Values): MemberRole {
  const value = required(values, "role");
  // `custom` needs --permissions (its explicit list).
  if (!isMemberRole(value)) throw new Error(`--role must be one of ${MEMBER_ROLES.join(", ")}`);
  return value;
}

/** `--permissions a,b` for a custom role (required there, refused elsewhere: it would grant nothing). */
function customPermissions(values: Values, memberRole: MemberRole): Permission[] | undefined {
  const list = values.permissions;
  if (memberRole !== "custom") {
    if (list !== undefined) throw new Error("--permissions is only for --role custom");
    return undefined;
  }
  if (typeof list !== "string" || list.trim() === "" || list.trim() === "all") throw new Error("--role custom needs --permissions a,b (API permission names)");
  return parsePermissionList(list);
}

/** User accounts and project membership (issue #11): each prints one JSON line. */
export const memberCommands: Record<string, AdminCommand> = {
  "create-user": {
    usage: "--email EMAIL --password PASSWORD --name NAME [--project ID --role admin|member|viewer|custom [--permissions a,b]]",
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      project: { type: "string" },
      role: { type: "string" },
      permissions: { type: "string" },
    },
    async run(values) {
      const withProject = values.project !== undefined;
      if (!withProject && (values.role !== undefined || values.permissions !== undefined)) throw new Error("--role needs --project");
      const password = values.password;
      if (typeof password !== "string" || password === "") throw new Error("--password is required");
      const memberRole = withProject ? role(values) : null;
      return createUser({
        email: required(values, "email"),
        password,
        name: required(values, "name"),
        membership: memberRole ? { projectId: uuidOption(values, "project"), role: memberRole, permissions: customPermissions(values, memberRole) } : undefined,
      });
    },
  },
  "add-member": {
    usage: "--project ID --user ID --role admin|member|viewer|custom [--permissions a,b]   (records project.member-joined)",
    options: { project: { type: "string" }, user: { type: "string" }, role: { type: "string" }, permissions: { type: "string" } },
    async run(values) {
      const memberRole = role(values);
      return addProjectMember({
        projectId: uuidOption(values, "project"),
        userId: uuidOption(values, "user"),
        role: memberRole,
        permissions: customPermissions(values, memberRole),
        invitedByUserId: null,
      });
    },
  },
  "set-password": {
    usage: "--email EMAIL --password PASSWORD   (ends the user's portal sessions)",
    options: { email: { type: "string" }, password: { type: "string" } },
    async run(values) {
      const password = values.password;
      if (typeof password !== "string" || password === "") throw new Error("--password is required");
      return setUserPassword({ email: required(values, "email"), password });
    },
  },
};
