"use client";

import type { PortalInvitation } from "@/lib/portal/types";
import { ConfirmAction } from "@/components/keys/confirm-action";
import { errorMessage } from "@/components/portal/portal-fetch";
import { EmptyState, ErrorState, formatDateTime, Spinner } from "@/components/portal/ui";
import { useInvitations, useRevokeInvitation } from "./hooks";
import { ROLE_LABELS } from "./roles";

function InvitationItem({ projectId, invitation }: { projectId: string; invitation: PortalInvitation }) {
  const revoke = useRevokeInvitation(projectId);
  const role = ROLE_LABELS[invitation.role];
  return (
    <li data-testid="invitation-item" className="flex flex-wrap items-start justify-between gap-2 rounded-md border border-slate-300 bg-white p-3 text-sm text-slate-800">
      <div>
        <p className="font-semibold text-slate-900">
          {role} invitation{invitation.role === "custom" ? ` (${invitation.permissions.join(", ")})` : ""}
        </p>
        <p>
          Created by {invitation.invitedByName} on {formatDateTime(invitation.createdAt)}; expires {formatDateTime(invitation.expiresAt)}
        </p>
      </div>
      <ConfirmAction
        label="Revoke…"
        confirmLabel="Revoke link"
        pendingLabel="Revoking…"
        groupLabel={`Confirm revoking the ${role} invitation`}
        question="The link stops working at once."
        pending={revoke.isPending}
        error={revoke.isError ? new Error(`Not revoked: ${errorMessage(revoke.error)}`) : null}
        onConfirm={() => revoke.mutate(invitation.id)}
      />
    </li>
  );
}

/** Links not yet used, expired or revoked. */
export function InvitationList({ projectId }: { projectId: string }) {
  const invitations = useInvitations(projectId);
  return (
    <section aria-labelledby="pending-invitations" className="space-y-2">
      <h2 id="pending-invitations" className="text-lg font-semibold text-slate-900">
        Pending invitations
      </h2>
      {invitations.isPending ? (
        <Spinner label="Loading invitations…" />
      ) : invitations.isError ? (
        <ErrorState error={invitations.error} onRetry={() => invitations.refetch()} title="Could not load the invitations" />
      ) : invitations.data.invitations.length === 0 ? (
        <EmptyState title="No pending invitations">Links you create appear here until they are used, expire or are revoked.</EmptyState>
      ) : (
        <ul className="space-y-2">
          {invitations.data.invitations.map((invitation) => (
            <InvitationItem key={invitation.id} projectId={projectId} invitation={invitation} />
          ))}
        </ul>
      )}
    </section>
  );
}
