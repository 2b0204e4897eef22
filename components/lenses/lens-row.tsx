"use client";

import type { PortalLens } from "@/lib/portal/types";
import { Badge } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { STEP_KEYS } from "./lens-model";

/** Options in the form's order (the database returns JSON keys shortest first), unknown ones after. */
function optionsText(options: Record<string, unknown>): string {
  const rank = (key: string) => (STEP_KEYS as readonly string[]).indexOf(key) >>> 0;
  return Object.entries(options)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(", ");
}

function summary(lens: PortalLens): string {
  if (!lens.transforms || lens.transforms.length === 0) return "No transform";
  return lens.transforms.map((t) => `${t.type} ${optionsText((t.options ?? {}) as Record<string, unknown>)}`).join("; ");
}

/** One lens: what it does, its version and state, and (for writers, own lenses) Edit and Activate. */
export function LensRow({ lens, canWrite, busy, onEdit, onToggle }: { lens: PortalLens; canWrite: boolean; busy: boolean; onEdit: () => void; onToggle: () => void }) {
  const editable = canWrite && !lens.builtIn;
  return (
    <tr data-testid="lens" data-identifier={lens.identifier} className="border-t border-slate-200 align-top">
      <th scope="row" className="py-2 pr-3 text-left font-medium text-slate-900">
        <code>@{lens.identifier}</code>
        <div className="text-xs font-normal text-slate-700">{lens.name}</div>
      </th>
      <td className="py-2 pr-3">{lens.type}</td>
      <td className="py-2 pr-3 text-xs break-words">{summary(lens)}</td>
      <td className="py-2 pr-3">{lens.version}</td>
      <td className="py-2 pr-3">
        <div className="flex flex-wrap gap-1">
          {lens.active ? <Badge tone="success">Active</Badge> : <Badge>Inactive</Badge>}
          {lens.builtIn ? <Badge tone="info">Built-in, read-only</Badge> : null}
          {lens.shadowed ? <Badge tone="warning">Replaced by the project's lens</Badge> : null}
        </div>
      </td>
      <td className="py-2">
        {editable ? (
          <div className="flex flex-wrap gap-2">
            <button type="button" className={buttonClass("secondary")} onClick={onEdit} disabled={busy} aria-label={`Edit ${lens.identifier}`}>
              Edit
            </button>
            <button type="button" className={buttonClass("secondary")} onClick={onToggle} disabled={busy} aria-label={`${lens.active ? "Deactivate" : "Activate"} ${lens.identifier}`}>
              {lens.active ? "Deactivate" : "Activate"}
            </button>
          </div>
        ) : null}
      </td>
    </tr>
  );
}
