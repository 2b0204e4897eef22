"use client";

import { useState } from "react";
import type { PortalConnector, PortalConnectorWithSecret, PortalDelivery } from "@/lib/portal/types";
import { buttonClass } from "@/components/portal/styles";
import { connectorErrorText } from "./connector-errors";
import { useDeleteConnector, useRotateSecret, useSetEnabled, useTestConnector } from "./hooks";
import { OutcomeMessage, type Outcome } from "./outcome";

/** A test message's outcome in words: what the receiver answered and how fast, or why it failed. */
function testOutcome(delivery: PortalDelivery): Outcome {
  const attempt = delivery.log.at(-1);
  const timing = attempt ? ` in ${attempt.latencyMs} ms` : "";
  if (delivery.status === "succeeded") return { ok: true, text: `Test message delivered (HTTP ${attempt?.statusCode ?? "?"}${timing}).` };
  const answer = attempt?.statusCode ? `HTTP ${attempt.statusCode}` : "no answer";
  const error = (attempt?.error ?? delivery.lastError ?? "unknown error").replace(/\.$/, "");
  return { ok: false, text: `Test message failed (${answer}${timing}): ${error}.` };
}

interface Props {
  projectId: string;
  connector: PortalConnector;
  onEdit: () => void;
  onSecret: (connector: PortalConnectorWithSecret) => void;
}

/** Edit, test, rotate, turn off or on, delete (with a confirmation step). Writers only. */
export function ConnectorActions({ projectId, connector, onEdit, onSecret }: Props) {
  const test = useTestConnector(projectId);
  const rotate = useRotateSecret(projectId);
  const setEnabled = useSetEnabled(projectId);
  const remove = useDeleteConnector(projectId);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const busy = test.isPending || rotate.isPending || setEnabled.isPending || remove.isPending;
  const failed = (what: string) => (error: unknown) => setOutcome({ ok: false, text: `Could not ${what}: ${connectorErrorText(error)}` });

  const sendTest = () => {
    setOutcome(null);
    test.mutate(connector.id, { onSuccess: (delivery) => setOutcome(testOutcome(delivery)), onError: failed("send a test") });
  };
  const rotateSecret = () => {
    setOutcome(null);
    rotate.mutate(connector.id, { onSuccess: onSecret, onError: failed("rotate the secret") });
  };
  const toggle = () => {
    setOutcome(null);
    const enabled = !connector.enabled;
    setEnabled.mutate(
      { id: connector.id, enabled },
      { onSuccess: () => setOutcome({ ok: true, text: enabled ? "Turned back on." : "Turned off." }), onError: failed(enabled ? "turn it on" : "turn it off") },
    );
  };
  const doDelete = () => remove.mutate(connector.id, { onError: failed("delete it") });

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonClass("secondary")} onClick={onEdit} disabled={busy}>
          Edit
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={sendTest} disabled={busy}>
          {test.isPending ? "Sending test…" : "Send test"}
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={rotateSecret} disabled={busy}>
          Rotate secret
        </button>
        <button type="button" className={buttonClass(connector.enabled ? "secondary" : "primary")} onClick={toggle} disabled={busy}>
          {connector.enabled ? "Turn off" : "Re-enable"}
        </button>
        {confirmDelete ? null : (
          <button type="button" className={buttonClass("reject")} onClick={() => setConfirmDelete(true)} disabled={busy}>
            Delete
          </button>
        )}
      </div>
      {confirmDelete ? (
        <div role="group" aria-label="Confirm deletion" className="flex flex-wrap items-center gap-2 rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-950">
          <span>Delete {connector.name} and its whole delivery log?</span>
          <button type="button" className={buttonClass("reject")} onClick={doDelete} disabled={busy}>
            Delete for good
          </button>
          <button type="button" className={buttonClass("secondary")} onClick={() => setConfirmDelete(false)}>
            Keep it
          </button>
        </div>
      ) : null}
      <OutcomeMessage outcome={outcome} testId="connector" />
    </div>
  );
}
