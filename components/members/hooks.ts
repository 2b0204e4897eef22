"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { portalFetch } from "@/components/portal/portal-fetch";
import type { CreatedInvitation, PortalInvitation, PortalMember, RoleRequest } from "@/lib/portal/types";

export const membersKey = (projectId: string) => ["portal", "members", projectId] as const;
export const invitationsKey = (projectId: string) => ["portal", "members", projectId, "invitations"] as const;
const base = (projectId: string) => `/api/portal/projects/${encodeURIComponent(projectId)}`;

export function useMembers(projectId: string) {
  return useQuery({
    queryKey: membersKey(projectId),
    queryFn: ({ signal }) => portalFetch<{ members: PortalMember[] }>(`${base(projectId)}/members`, { signal }),
  });
}

export function useInvitations(projectId: string) {
  return useQuery({
    queryKey: invitationsKey(projectId),
    queryFn: ({ signal }) => portalFetch<{ invitations: PortalInvitation[] }>(`${base(projectId)}/invitations`, { signal }),
  });
}

/** Every members mutation refreshes members and invitations (the key prefix covers both). */
function useMembersMutation<I, O>(projectId: string, mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: membersKey(projectId) }) });
}

export function useCreateInvitation(projectId: string) {
  return useMembersMutation(projectId, (request: RoleRequest) => portalFetch<CreatedInvitation>(`${base(projectId)}/invitations`, { method: "POST", json: request }));
}

export function useRevokeInvitation(projectId: string) {
  return useMembersMutation(projectId, (invitationId: string) =>
    portalFetch<{ revoked: string }>(`${base(projectId)}/invitations/${encodeURIComponent(invitationId)}/revoke`, { method: "POST", json: {} }),
  );
}

export function useChangeRole(projectId: string) {
  return useMembersMutation(projectId, ({ userId, request }: { userId: string; request: RoleRequest }) =>
    portalFetch<{ member: PortalMember }>(`${base(projectId)}/members/${encodeURIComponent(userId)}`, { method: "PATCH", json: request }),
  );
}

export function useRemoveMember(projectId: string) {
  return useMembersMutation(projectId, (userId: string) =>
    portalFetch<{ removed: string }>(`${base(projectId)}/members/${encodeURIComponent(userId)}`, { method: "DELETE", json: {} }),
  );
}
