"use client";

import { useState } from "react";
import type { PortalLens } from "@/lib/portal/types";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { useLenses, useSaveLens } from "./hooks";
import { LensForm } from "./lens-form";
import { draftOf, requestOf, saveErrorText } from "./lens-model";
import { LensRow } from "./lens-row";
import { OutcomeMessage, type Outcome } from "@/components/connectors/outcome";

export function LensesPage({ projectId, canWrite }: { projectId: string; canWrite: boolean }) {
  const lenses = useLenses(projectId);
  const toggle = useSaveLens(projectId);
  const [editing, setEditing] = useState<null | "new" | PortalLens>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // Activating is an update like any other: the same definition with `active` flipped, one version up.
  const onToggle = (lens: PortalLens) => {
    setOutcome(null);
    const body = requestOf({ ...draftOf(lens), active: !lens.active }, lens.version + 1);
    toggle.mutate(body, {
      onSuccess: ({ lens: saved }) => setOutcome({ ok: true, text: `${saved.identifier} is ${saved.active ? "active" : "inactive"} (version ${saved.version}).` }),
      onError: (error) => setOutcome({ ok: false, text: `Could not change ${lens.identifier}: ${saveErrorText(error)}` }),
    });
  };
  const edit = (target: "new" | PortalLens) => {
    setOutcome(null);
    setEditing(target);
  };
  const done = (text: string) => {
    setEditing(null);
    setOutcome({ ok: true, text });
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Lenses</h1>
          <p className="text-sm text-slate-700">
            Named transforms the CDN applies at <code>…/content/@identifier</code>. Every change raises the version (part of the cache key).
          </p>
        </div>
        {canWrite && editing === null ? (
          <button type="button" className={buttonClass("primary")} onClick={() => edit("new")}>
            New lens
          </button>
        ) : null}
      </div>
      {canWrite ? null : (
        <p data-testid="read-only" className="rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
          Read-only: changing lenses needs the lenses:write permission (admins and members have it).
        </p>
      )}
      <OutcomeMessage outcome={outcome} testId="lens" />
      {lenses.isPending ? (
        <Spinner label="Loading lenses…" />
      ) : lenses.isError ? (
        <ErrorState error={lenses.error} title="Could not load the lenses" onRetry={() => void lenses.refetch()} />
      ) : (
        <>
          {editing !== null ? (
            <LensForm
              key={editing === "new" ? "new" : `${editing.identifier}@${editing.version}`}
              projectId={projectId}
              lens={editing === "new" ? undefined : editing}
              previewAssets={lenses.data.previewAssets}
              onDone={done}
              onCancel={() => setEditing(null)}
              onReload={() => setEditing(lenses.data.lenses.find((l) => !l.builtIn && editing !== "new" && l.identifier === editing.identifier) ?? null)}
            />
          ) : null}
          {lenses.data.lenses.length === 0 ? (
            <EmptyState title="No lenses" />
          ) : (
            <div tabIndex={0} role="region" aria-label="Lenses table" className="overflow-x-auto rounded-lg border border-slate-300 bg-white px-3">
              <table className="w-full min-w-[40rem] text-left text-sm text-slate-900">
                <caption className="sr-only">The project's lenses and the built-in ones</caption>
                <thead className="text-xs text-slate-700">
                  <tr>
                    {["Lens", "Type", "Transforms", "Version", "State", "Actions"].map((h) => (
                      <th key={h} scope="col" className="py-2 pr-3 font-medium">
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {lenses.data.lenses.map((lens) => (
                    <LensRow key={lens.id} lens={lens} canWrite={canWrite} busy={toggle.isPending} onEdit={() => edit(lens)} onToggle={() => onToggle(lens)} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </div>
  );
}
