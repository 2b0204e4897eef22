"use client";

import { useId, useState, type FormEvent } from "react";
import type { CreateConnectorRequest, PortalConnector, PortalConnectorWithSecret, UpdateConnectorRequest } from "@/lib/portal/types";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { connectorErrorText } from "./connector-errors";
import { EventTypePicker } from "./event-type-picker";
import { useCreateConnector, useUpdateConnector } from "./hooks";

type ConnectorType = PortalConnector["type"];
const TYPES: { value: ConnectorType; label: string; hint: string }[] = [
  { value: "webhook", label: "Webhook", hint: "Signed HTTP POST to your URL" },
  { value: "slack", label: "Slack", hint: "A Slack incoming-webhook URL" },
  { value: "email", label: "Email", hint: "Up to 10 recipients" },
];

const splitRecipients = (text: string) => text.split(/[\s,;]+/).filter(Boolean);

interface Props {
  projectId: string;
  /** The connector to edit; absent to create one. */
  connector?: PortalConnector;
  emailAvailable: boolean;
  onCreated?: (created: PortalConnectorWithSecret) => void;
  onDone: () => void;
}

/** Create or edit a connector, with the API's own validation (its message is shown in the form). */
export function ConnectorForm({ projectId, connector, emailAvailable, onCreated, onDone }: Props) {
  const id = useId();
  const create = useCreateConnector(projectId);
  const update = useUpdateConnector(projectId);
  const mutation = connector ? update : create;
  const [type, setType] = useState<ConnectorType>(connector?.type ?? "webhook");
  const [name, setName] = useState(connector?.name ?? "");
  // A Slack URL comes back masked: the field starts empty and an empty field keeps the stored one.
  const [url, setUrl] = useState(connector?.type === "webhook" ? (connector.url ?? "") : "");
  const [recipients, setRecipients] = useState(connector?.recipients.join("\n") ?? "");
  const [eventTypes, setEventTypes] = useState<string[]>(connector?.eventTypes ?? []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const events = eventTypes as NonNullable<CreateConnectorRequest["eventTypes"]>;
    if (connector) {
      const body: UpdateConnectorRequest = { name, eventTypes: events };
      if (type === "email") body.recipients = splitRecipients(recipients);
      else if (url !== "" && url !== connector.url) body.url = url;
      update.mutate({ id: connector.id, body }, { onSuccess: onDone });
      return;
    }
    const body: CreateConnectorRequest =
      type === "email" ? { type, name, recipients: splitRecipients(recipients), eventTypes: events } : { type, name, url, eventTypes: events };
    create.mutate(body, { onSuccess: (created) => onCreated?.(created) });
  };

  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="connector-form" className="space-y-4 rounded-lg border border-slate-300 bg-white p-4">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
        {connector ? `Edit ${connector.name}` : "New connector"}
      </h2>
      {connector ? (
        <p className="text-sm text-slate-800">Type: {TYPES.find((t) => t.value === type)?.label} (a connector's type cannot change)</p>
      ) : (
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-slate-800">Type</legend>
          <div className="flex flex-wrap gap-3">
            {TYPES.map((t) => (
              <label key={t.value} className="flex min-h-9 items-center gap-2 rounded-md border border-slate-300 px-3 text-sm text-slate-900">
                <input type="radio" name={`${id}-type`} value={t.value} checked={type === t.value} onChange={() => setType(t.value)} />
                <span>
                  <span className="font-medium">{t.label}</span> <span className="text-slate-700">— {t.hint}</span>
                </span>
              </label>
            ))}
          </div>
          {type === "email" && !emailAvailable ? (
            <p className="text-sm text-amber-900" data-testid="email-unavailable">
              This server has no SMTP settings, so an email connector cannot be created here.
            </p>
          ) : null}
        </fieldset>
      )}
      <div className="space-y-1">
        <label htmlFor={`${id}-name`} className={labelClass}>
          Name
        </label>
        <input id={`${id}-name`} className={inputClass} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </div>
      {type === "email" ? (
        <div className="space-y-1">
          <label htmlFor={`${id}-recipients`} className={labelClass}>
            Recipients
          </label>
          <textarea id={`${id}-recipients`} aria-describedby={`${id}-recipients-hint`} rows={3} className={inputClass} value={recipients} onChange={(e) => setRecipients(e.target.value)} />
          <p id={`${id}-recipients-hint`} className="text-xs text-slate-700">
            One address per line (at most 10).
          </p>
        </div>
      ) : (
        <div className="space-y-1">
          <label htmlFor={`${id}-url`} className={labelClass}>
            {type === "slack" ? "Slack incoming-webhook URL" : "Webhook URL"}
          </label>
          <input
            id={`${id}-url`}
            type="url"
            className={inputClass}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required={!connector || type === "webhook"}
            aria-describedby={`${id}-url-hint`}
            placeholder={connector?.type === "slack" ? `${connector.url ?? ""} (leave empty to keep)` : "https://example.com/sieve-events"}
          />
          <p id={`${id}-url-hint`} className="text-xs text-slate-700">
            Public http(s) addresses only: private, loopback and link-local networks are refused.
          </p>
        </div>
      )}
      <EventTypePicker value={eventTypes} onChange={setEventTypes} />
      {mutation.isError ? (
        <p role="alert" data-testid="connector-form-error" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          {connector ? "Could not save: " : "Could not create: "}
          {connectorErrorText(mutation.error)}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClass("primary")} disabled={mutation.isPending}>
          {mutation.isPending ? "Saving…" : connector ? "Save changes" : "Create connector"}
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
