"use client";

import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { useMembers } from "./hooks";
import { InvitationList } from "./invitation-list";
import { InvitePanel } from "./invite-panel";
import { MemberItem } from "./member-item";

/** The owner console's members: invite by link, pending links, members with role changes and removal. */
export function MembersPage({ projectId, projectName, userId }: { projectId: string; projectName: string; userId: string }) {
  const members = useMembers(projectId);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">Members</h1>
          <p className="text-sm text-slate-700">Who can sign in to {projectName}, and what their role lets them do.</p>
        </div>
      </div>
      <InvitePanel projectId={projectId} />
      <InvitationList projectId={projectId} />
      <section aria-labelledby="members-title" className="space-y-2">
        <h2 id="members-title" className="text-lg font-semibold text-slate-900">
          Members
        </h2>
        {members.isPending ? (
          <Spinner label="Loading members…" />
        ) : members.isError ? (
          <ErrorState error={members.error} onRetry={() => members.refetch()} title="Could not load the members" />
        ) : members.data.members.length === 0 ? (
          <EmptyState title="No members yet">Invite someone with a link above.</EmptyState>
        ) : (
          <ul className="space-y-2" data-testid="member-list">
            {members.data.members.map((member) => (
              <MemberItem key={member.userId} projectId={projectId} member={member} isYou={member.userId === userId} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
