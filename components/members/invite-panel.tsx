"use client";

import { useState } from "react";
import type { CreatedInvitation, RoleRequest } from "@/lib/portal/types";
import { FormFooter } from "@/components/keys/form-footer";
import { SecretPanel } from "@/components/keys/secret-panel";
import { errorMessage } from "@/components/portal/portal-fetch";
import { buttonClass } from "@/components/portal/styles";
import { formatDateTime } from "@/components/portal/ui";
import { useCreateInvitation } from "./hooks";
import { RolePicker, roleProblem } from "./role-picker";
import { ROLE_LABELS } from "./roles";

/** "Invite someone": a role, then the link shown once (it is a secret: whoever holds it can join). */
export function InvitePanel({ projectId }: { projectId: string }) {
  const [open, setOpen] = useState(false);
  const [request, setRequest] = useState<RoleRequest>({ role: "member" });
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const create = useCreateInvitation(projectId);

  if (created) {
    const { invitation } = created;
    return (
      <SecretPanel
        title={`Invitation link for a new ${ROLE_LABELS[invitation.role].toLowerCase()}`}
        secret={`${window.location.origin}${created.path}`}
        warning={`Send this link to the person you invite: it lets one person join as ${ROLE_LABELS[invitation.role]} until ${formatDateTime(invitation.expiresAt)}. You will not see it again.`}
        onDone={() => setCreated(null)}
      />
    );
  }
  if (!open) {
    return (
      <button type="button" className={buttonClass("primary")} onClick={() => setOpen(true)}>
        Invite someone
      </button>
    );
  }
  const shown = problem ?? (create.isError ? `No invitation was created: ${errorMessage(create.error)}` : null);
  return (
    <form
      aria-label="Invite someone"
      data-testid="invite-form"
      className="space-y-4 rounded-md border border-slate-300 bg-white p-4"
      onSubmit={(event) => {
        event.preventDefault();
        const found = roleProblem(request);
        setProblem(found);
        if (found) return;
        create.mutate(request, {
          onSuccess: (result) => {
            setOpen(false);
            setRequest({ role: "member" });
            setCreated(result);
          },
        });
      }}
    >
      <h2 className="text-lg font-semibold text-slate-900">Invite someone</h2>
      <RolePicker legend="Role of the new member" value={request} onChange={setRequest} />
      <FormFooter problem={shown} submitLabel="Create invitation link" pendingLabel="Creating link…" pending={create.isPending} onCancel={() => setOpen(false)} />
    </form>
  );
}
