"use client";

import { useState } from "react";
import type { PortalConnector, PortalConnectorWithSecret } from "@/lib/portal/types";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { buttonClass } from "@/components/portal/styles";
import { ConnectorActions } from "./connector-actions";
import { DeliveriesLog } from "./deliveries-log";

const TYPE_LABEL = { webhook: "Webhook", slack: "Slack", email: "Email" } as const;

interface Props {
  projectId: string;
  connector: PortalConnector;
  canWrite: boolean;
  onEdit: () => void;
  onSecret: (connector: PortalConnectorWithSecret) => void;
}

/** One connector: where it sends, which events, its health, why it is off, actions, deliveries. */
export function ConnectorCard({ projectId, connector, canWrite, onEdit, onSecret }: Props) {
  const [showLog, setShowLog] = useState(false);
  const logId = `deliveries-${connector.id}`;
  const target = connector.type === "email" ? connector.recipients.join(", ") : (connector.url ?? "");
  return (
    <li data-testid="connector" data-connector-id={connector.id} className="space-y-3 rounded-lg border border-slate-300 bg-white p-4">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-base font-semibold text-slate-900">{connector.name}</h2>
        <Badge>{TYPE_LABEL[connector.type]}</Badge>
        {connector.enabled ? <Badge tone="success">On</Badge> : <Badge tone="danger">Off</Badge>}
        {connector.enabled && connector.consecutiveFailures > 0 ? <Badge tone="warning">{connector.consecutiveFailures} failure{connector.consecutiveFailures === 1 ? "" : "s"} in a row</Badge> : null}
      </div>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium text-slate-700">{connector.type === "email" ? "Recipients" : "Sends to"}</dt>
        <dd className="break-all text-slate-900">{target}</dd>
        <dt className="font-medium text-slate-700">Events</dt>
        <dd className="text-slate-900">{connector.eventTypes.length === 0 ? "Every type" : connector.eventTypes.join(", ")}</dd>
        {connector.enabled && connector.failingSince !== null ? (
          <>
            {/* The run counts failures since the last success or re-enable: older failed attempts stay in the log. */}
            <dt className="font-medium text-slate-700">Failing since</dt>
            <dd className="text-slate-900">{formatDateTime(connector.failingSince)}</dd>
          </>
        ) : null}
        {connector.lastError ? (
          <>
            <dt className="font-medium text-slate-700">Last error</dt>
            <dd className="break-words text-slate-900">
              {connector.lastError}
              {connector.lastFailureAt ? ` (${formatDateTime(connector.lastFailureAt)})` : ""}
            </dd>
          </>
        ) : null}
        {connector.previousSecretExpiresAt ? (
          <>
            <dt className="font-medium text-slate-700">Previous secret</dt>
            <dd className="text-slate-900">still signs until {formatDateTime(connector.previousSecretExpiresAt)}</dd>
          </>
        ) : null}
      </dl>
      {!connector.enabled ? (
        <div data-testid="disabled-reason" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
          <p className="font-medium">Turned off{connector.disabledAt ? ` ${formatDateTime(connector.disabledAt)}` : ""}</p>
          <p>{connector.disabledReason ?? "No reason was recorded."}</p>
          <p className="mt-1">Nothing is delivered while it is off: re-enable it, then replay what it missed.</p>
        </div>
      ) : null}
      {canWrite ? <ConnectorActions projectId={projectId} connector={connector} onEdit={onEdit} onSecret={onSecret} /> : null}
      <button type="button" className={buttonClass("secondary")} aria-expanded={showLog} aria-controls={logId} onClick={() => setShowLog(!showLog)}>
        {showLog ? "Hide deliveries" : "Show deliveries"}
      </button>
      <div id={logId} hidden={!showLog}>
        {showLog ? <DeliveriesLog projectId={projectId} connector={connector} canWrite={canWrite} /> : null}
      </div>
    </li>
  );
}
