import type { Permission } from "@/lib/auth/permissions";

/** The caller of an API request, as authenticated by its key. */
export interface AuthenticatedKey {
  id: string;
  projectId: string;
  permissions: Permission[];
  rateLimitPerSecond: number | null;
  /** Owner of the key's project (whose upload allowance uploads count against). */
  ownerUserId: string;
  /** How the key is named to people (a reviewer's name in events): its name, else its prefix. */
  label: string;
}
