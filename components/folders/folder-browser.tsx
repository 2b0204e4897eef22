"use client";

import { useMemo, useState } from "react";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import type { Dropped } from "./drag";
import { FolderActions } from "./folder-actions";
import { FolderAssets } from "./folder-assets";
import { buildTree, explainCode, explainError, flatten, ROOT, ROOT_LABEL } from "./folder-model";
import { FolderTree } from "./folder-tree";
import { useFolders, useMoveAssets, useMoveFolder } from "./hooks";

type Notice = { tone: "ok" | "error"; text: string };

/** The folders page: the tree on the left, the chosen folder's actions and assets on the right. */
export function FolderBrowser({ projectId, canWrite, role }: { projectId: string; canWrite: boolean; role: string }) {
  const folders = useFolders(projectId);
  const moveAssets = useMoveAssets(projectId);
  const moveFolder = useMoveFolder(projectId);
  const [chosen, setChosen] = useState(ROOT);
  const [notice, setNotice] = useState<Notice | null>(null);

  const tree = useMemo(() => buildTree(folders.data?.folders ?? []), [folders.data]);
  const options = useMemo(() => flatten(tree), [tree]);
  const labelOf = (id: string) => (id === ROOT ? ROOT_LABEL : (options.find((o) => o.id === id)?.label ?? "a folder"));
  // A folder deleted elsewhere falls back to the root rather than showing a folder that is gone.
  const current = chosen === ROOT || options.some((o) => o.id === chosen) ? chosen : ROOT;
  const node = options.find((o) => o.id === current)?.node ?? null;

  const moveAssetsTo = (assetIds: string[], destination: string, clear?: () => void) => {
    setNotice(null);
    moveAssets.mutate(
      { assetIds, folderId: destination === ROOT ? null : destination },
      {
        onSuccess: ({ moved, failed }) => {
          clear?.();
          const parts = moved.length ? [`Moved ${moved.length} asset${moved.length === 1 ? "" : "s"} to ${labelOf(destination)}.`] : [];
          for (const f of failed) parts.push(`One asset was not moved: ${explainCode(f.code, f.message)}`);
          setNotice({ tone: failed.length ? "error" : "ok", text: parts.join(" ") });
        },
        onError: (error) => setNotice({ tone: "error", text: `The assets were not moved. ${explainError(error)}` }),
      },
    );
  };

  const dropped = (target: string, what: Dropped) => {
    if (what.kind === "assets") return moveAssetsTo(what.assetIds, target);
    if (what.folderId === target) return;
    setNotice(null);
    const name = labelOf(what.folderId);
    moveFolder.mutate(
      { id: what.folderId, parentId: target === ROOT ? null : target },
      {
        onSuccess: () => setNotice({ tone: "ok", text: `Moved “${name}” to ${labelOf(target)}.` }),
        onError: (error) => setNotice({ tone: "error", text: `“${name}” was not moved. ${explainError(error)}` }),
      },
    );
  };

  if (folders.isPending) return <Spinner label="Loading folders…" />;
  if (folders.isError) return <ErrorState error={folders.error} title="Could not load the folders" onRetry={() => void folders.refetch()} />;

  return (
    <div className="grid gap-6 lg:grid-cols-[18rem_minmax(0,1fr)]">
      <div className="space-y-3">
        <FolderTree nodes={tree} selected={current} canWrite={canWrite} onSelect={(id) => { setChosen(id); setNotice(null); }} onDrop={dropped} />
        {tree.length === 0 ? <EmptyState title="No folders yet">{canWrite ? "Create one with “New folder”." : null}</EmptyState> : null}
        {canWrite ? <p className="text-xs text-slate-700">Drag assets or folders onto a folder to move them, or use the “Move … to” forms.</p> : null}
      </div>
      <div className="min-w-0 space-y-4">
        <h2 className="text-xl font-semibold text-slate-900" data-testid="current-folder">{labelOf(current)}</h2>
        <div aria-live="polite" data-testid="folder-notice">
          {notice ? (
            <p role={notice.tone === "error" ? "alert" : "status"} className={`rounded-md border p-3 text-sm ${notice.tone === "error" ? "border-red-300 bg-red-50 text-red-900" : "border-green-300 bg-green-50 text-green-900"}`}>
              {notice.text}
            </p>
          ) : null}
        </div>
        {canWrite ? (
          <FolderActions
            key={`actions-${current}`}
            projectId={projectId}
            node={node}
            options={options}
            onDone={(text, select) => {
              setNotice({ tone: "ok", text });
              if (select) setChosen(select);
            }}
          />
        ) : (
          <p data-testid="read-only" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
            You can look at folders and their assets, but your role ({role}) does not allow changing them (it needs the “assets:write” permission).
          </p>
        )}
        <FolderAssets key={`assets-${current}`} projectId={projectId} folderId={current} folderLabel={labelOf(current)} canWrite={canWrite} options={options} movePending={moveAssets.isPending} onMove={moveAssetsTo} />
      </div>
    </div>
  );
}
