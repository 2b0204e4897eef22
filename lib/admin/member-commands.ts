import { required, type AdminCommand, type Values } from "@/lib/admin/commands";
import { createUser, setUserPassword } from "@/lib/admin/users";
import { isUuid } from "@/lib/core/ids";
import { addProjectMember, type MemberRole } from "@/lib/projects/members";

/** Roles an operator gives; `custom` is left to the portal's permission editor. */
const CLI_ROLES = ["admin", "member", "viewer"] as const satisfies readonly MemberRole[];
const isCliRole = (value: string): value is (typeof CLI_ROLES)[number] => (CLI_ROLES as readonly string[]).includes(value);

function uuidOption(values: Values, name: string): string {
  const value = required(values, name);
  if (!isUuid(value)) throw new Error(`--${name} must be a UUID`);
  return value.toLowerCase();
}

function role(values: Values): MemberRole {
  const value = required(values, "role");
  if (!isCliRole(value)) throw new Error(`--role must be one of ${CLI_ROLES.join(", ")}`);
  return value;
}

/** User accounts and project membership (issue #11): each prints one JSON line. */
export const memberCommands: Record<string, AdminCommand> = {
  "create-user": {
    usage: "--email EMAIL --password PASSWORD --name NAME [--project ID --role admin|member|viewer]",
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      project: { type: "string" },
      role: { type: "string" },
    },
    async run(values) {
      const withProject = values.project !== undefined;
      if (!withProject && values.role !== undefined) throw new Error("--role needs --project");
      const password = values.password;
      if (typeof password !== "string" || password === "") throw new Error("--password is required");
      return createUser({
        email: required(values, "email"),
        password,
        name: required(values, "name"),
        membership: withProject ? { projectId: uuidOption(values, "project"), role: role(values) } : undefined,
      });
    },
  },
  "add-member": {
    usage: "--project ID --user ID --role admin|member|viewer   (records project.member-joined)",
    options: { project: { type: "string" }, user: { type: "string" }, role: { type: "string" } },
    async run(values) {
      return addProjectMember({
        projectId: uuidOption(values, "project"),
        userId: uuidOption(values, "user"),
        role: role(values),
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
