"use client";

import { useState } from "react";
import type { CreatedApiKey } from "@/lib/portal/types";
import { buttonClass } from "@/components/portal/styles";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { CreateKeyForm } from "./create-key-form";
import { useApiKeys } from "./hooks";
import { KeyItem } from "./key-item";
import { SecretPanel } from "./secret-panel";

/** The owner console's API keys: create (secret shown once), list with last use, revoke. */
export function ApiKeysPage({ projectId, projectName }: { projectId: string; projectName: string }) {
  const keys = useApiKeys(projectId);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">API keys</h1>
          <p className="text-sm text-slate-700">Keys let programs use the Sieve API for {projectName}. Each key grants only the permissions chosen here.</p>
        </div>
        {creating || created ? null : (
          <button type="button" className={buttonClass("primary")} onClick={() => setCreating(true)}>
            New API key
          </button>
        )}
      </div>
      {created ? (
        <SecretPanel
          title={`Key “${created.key.name ?? created.key.prefix}” created`}
          secret={created.secret}
          warning="Copy the key now and store it somewhere safe: you will not see it again. Sieve keeps only a fingerprint of it."
          onDone={() => setCreated(null)}
        />
      ) : null}
      {creating ? (
        <CreateKeyForm
          projectId={projectId}
          onCancel={() => setCreating(false)}
          onCreated={(result) => {
            setCreating(false);
            setCreated(result);
          }}
        />
      ) : null}
      {keys.isPending ? (
        <Spinner label="Loading API keys…" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} onRetry={() => keys.refetch()} title="Could not load the API keys" />
      ) : keys.data.keys.length === 0 ? (
        <EmptyState title="No API keys yet">Create one for each program that calls the API, so you can revoke it on its own.</EmptyState>
      ) : (
        <section aria-labelledby="keys-list-title">
          <h2 id="keys-list-title" className="sr-only">
            Keys
          </h2>
          <ul className="space-y-2" data-testid="key-list">
            {keys.data.keys.map((apiKey) => (
              <KeyItem key={apiKey.id} projectId={projectId} apiKey={apiKey} />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
