"use client";

import { useState } from "react";
import type { PortalConnectorWithSecret } from "@/lib/portal/types";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { ConnectorCard } from "./connector-card";
import { ConnectorForm } from "./connector-form";
import { useConnectors } from "./hooks";
import { SecretNotice } from "./secret-notice";

/** The secret just shown by a create or rotate answer; it is never fetched again. */
interface ShownSecret {
  connector: PortalConnectorWithSecret;
  rotated: boolean;
}

/** Where the form is: closed, creating, or editing one connector. */
type Editing = null | "new" | string;

export function ConnectorsPage({ projectId, canWrite }: { projectId: string; canWrite: boolean }) {
  const connectors = useConnectors(projectId);
  const [editing, setEditing] = useState<Editing>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const emailAvailable = connectors.data?.emailAvailable ?? false;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Connectors</h1>
          <p className="text-sm text-slate-700">Webhooks, Slack channels and email addresses that receive the project's events.</p>
        </div>
        {canWrite && editing === null ? (
          <button type="button" className={buttonClass("primary")} onClick={() => setEditing("new")}>
            New connector
          </button>
        ) : null}
      </div>
      {canWrite ? null : (
        <p data-testid="read-only" className="rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
          Read-only: your role can see connectors and their deliveries but not change them (that needs the connectors:write permission, which
          project admins have).
        </p>
      )}
      {secret ? (
        <SecretNotice connectorName={secret.connector.name} secret={secret.connector.secret} rotated={secret.rotated} onDismiss={() => setSecret(null)} />
      ) : null}
      {editing === "new" ? (
        <ConnectorForm
          projectId={projectId}
          emailAvailable={emailAvailable}
          onCreated={(created) => {
            setEditing(null);
            setSecret({ connector: created, rotated: false });
          }}
          onDone={() => setEditing(null)}
        />
      ) : null}
      {connectors.isPending ? (
        <Spinner label="Loading connectors…" />
      ) : connectors.isError ? (
        <ErrorState error={connectors.error} title="Could not load the connectors" onRetry={() => void connectors.refetch()} />
      ) : connectors.data.items.length === 0 ? (
        <EmptyState title="No connectors yet">{canWrite ? "Create one to receive the project's events elsewhere." : "A project admin can create one."}</EmptyState>
      ) : (
        <>
          <ul className="space-y-3" aria-label="Connectors">
            {connectors.data.items.map((connector) =>
              editing === connector.id ? (
                <li key={connector.id}>
                  <ConnectorForm projectId={projectId} connector={connector} emailAvailable={emailAvailable} onDone={() => setEditing(null)} />
                </li>
              ) : (
                <ConnectorCard
                  key={connector.id}
                  projectId={projectId}
                  connector={connector}
                  canWrite={canWrite}
                  onEdit={() => setEditing(connector.id)}
                  onSecret={(rotated) => setSecret({ connector: rotated, rotated: true })}
                />
              ),
            )}
          </ul>
          {connectors.data.hasMore ? <p className="text-sm text-slate-700">Showing the newest {connectors.data.items.length} of {connectors.data.total}.</p> : null}
        </>
      )}
    </div>
  );
}
