"use client";

import type { PortalApiKey } from "@/lib/portal/types";
import { errorMessage } from "@/components/portal/portal-fetch";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { ConfirmAction } from "./confirm-action";
import { useRevokeApiKey } from "./hooks";

/** One key: prefix only (the secret is never shown again), its dates, permissions, and revoke with a confirm step. */
export function KeyItem({ projectId, apiKey }: { projectId: string; apiKey: PortalApiKey }) {
  const revoke = useRevokeApiKey(projectId);
  const label = apiKey.name ?? apiKey.prefix;
  const revoked = apiKey.revokedAt !== null;

  return (
    <li data-testid="key-item" data-key-id={apiKey.id} className={`space-y-2 rounded-md border p-3 ${revoked ? "border-slate-300 bg-slate-50" : "border-slate-300 bg-white"}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-semibold text-slate-900">{label}</h3>
        <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800" aria-label={`Key starts with ${apiKey.prefix}`}>
          {apiKey.prefix}…
        </code>
        {revoked ? <Badge tone="danger">Revoked {formatDateTime(apiKey.revokedAt as number)}</Badge> : <Badge tone="success">Active</Badge>}
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-800 sm:grid-cols-[max-content_max-content_max-content_max-content] sm:gap-x-6">
        <dt className="text-slate-700">Created</dt>
        <dd>{formatDateTime(apiKey.createdAt)}</dd>
        <dt className="text-slate-700">Last used</dt>
        <dd data-testid="key-last-used">{apiKey.lastUsedAt === null ? "Never" : formatDateTime(apiKey.lastUsedAt)}</dd>
        <dt className="text-slate-700">Rate limit</dt>
        <dd>{apiKey.rateLimitPerSecond === null ? "Server default" : `${apiKey.rateLimitPerSecond} per second`}</dd>
      </dl>
      <ul aria-label={`Permissions of ${label}`} className="flex flex-wrap gap-1">
        {apiKey.permissions.map((permission) => (
          <li key={permission}>
            <Badge>{permission}</Badge>
          </li>
        ))}
      </ul>
      {revoked ? null : (
        <ConfirmAction
          label="Revoke…"
          confirmLabel="Revoke key"
          pendingLabel="Revoking…"
          groupLabel={`Confirm revoking ${label}`}
          question={`Programs using ${label} stop working at their next request. This cannot be undone.`}
          pending={revoke.isPending}
          error={revoke.isError ? new Error(`Not revoked: ${errorMessage(revoke.error)}`) : null}
          onConfirm={() => revoke.mutate(apiKey.id)}
        />
      )}
    </li>
  );
}
