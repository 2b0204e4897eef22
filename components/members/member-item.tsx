"use client";

import { useState } from "react";
import type { PortalMember, RoleRequest } from "@/lib/portal/types";
import { ConfirmAction } from "@/components/keys/confirm-action";
import { FormFooter } from "@/components/keys/form-footer";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass } from "@/components/portal/styles";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { useChangeRole, useRemoveMember } from "./hooks";
import { RolePicker, roleProblem } from "./role-picker";
import { ROLE_LABELS } from "./roles";

/** One member: name, email, role (custom: its permissions), joined; change role and remove (not the owner). */
export function MemberItem({ projectId, member, isYou }: { projectId: string; member: PortalMember; isYou: boolean }) {
  const [editing, setEditing] = useState(false);
  const [request, setRequest] = useState<RoleRequest>({ role: member.role, permissions: member.role === "custom" ? member.permissions : undefined });
  const [problem, setProblem] = useState<string | null>(null);
  const change = useChangeRole(projectId);
  const remove = useRemoveMember(projectId);
  const name = member.name?.trim() || member.email;

  const save = () => {
    const found = roleProblem(request);
    setProblem(found);
    if (!found) change.mutate({ userId: member.userId, request }, { onSuccess: () => setEditing(false) });
  };
  const shown = problem ?? (change.isError ? `Role not changed: ${errorMessage(change.error)}` : null);

  return (
    <li data-testid="member-item" data-user-id={member.userId} className="space-y-2 rounded-md border border-slate-300 bg-white p-3">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="break-all font-semibold text-slate-900">{name}</h3>
        {isYou ? <Badge tone="info">You</Badge> : null}
        {member.isOwner ? <Badge tone="info">Owner</Badge> : null}
        <Badge tone={member.role === "admin" ? "warning" : "neutral"}>{ROLE_LABELS[member.role]}</Badge>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-800 sm:grid-cols-[max-content_max-content_max-content_max-content] sm:gap-x-6">
        {/* A member without a name is shown by email already. */}
        {member.name?.trim() ? (
          <>
            <dt className="text-slate-700">Email</dt>
            <dd className="break-all">{member.email}</dd>
          </>
        ) : null}
        <dt className="text-slate-700">Joined</dt>
        <dd>{formatDateTime(member.joinedAt)}</dd>
      </dl>
      {member.role === "custom" ? <p className="text-sm text-slate-800">Permissions: {member.permissions.join(", ")}</p> : null}
      {member.isOwner ? (
        <p className="text-sm text-slate-700">The owner is always an admin and cannot be removed.</p>
      ) : editing ? (
        <form
          aria-label={`Change the role of ${name}`}
          className="space-y-3 rounded-md border border-slate-300 bg-slate-50 p-3"
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <RolePicker legend={`Role of ${name}`} value={request} onChange={setRequest} />
          <FormFooter problem={shown} submitLabel="Save role" pendingLabel="Saving…" pending={change.isPending} onCancel={() => setEditing(false)} />
        </form>
      ) : (
        <div className="flex flex-wrap items-start gap-2">
          <button
            type="button"
            className={buttonClass("secondary")}
            onClick={() => {
              // Start from the role as it is now (it may have changed since this row first rendered).
              setRequest({ role: member.role, permissions: member.role === "custom" ? member.permissions : undefined });
              setProblem(null);
              setEditing(true);
            }}
          >
            Change role…
          </button>
          <ConfirmAction
            label="Remove…"
            confirmLabel="Remove member"
            pendingLabel="Removing…"
            groupLabel={`Confirm removing ${name}`}
            question={`${name} loses access to this project at once${isYou ? ", and so do you" : ""}.`}
            pending={remove.isPending}
            error={remove.isError ? new Error(`Not removed: ${errorMessage(remove.error)}`) : null}
            onConfirm={() => remove.mutate(member.userId)}
          />
        </div>
      )}
    </li>
  );
}
