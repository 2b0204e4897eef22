import { errorMessage, PortalFetchError } from "@/components/portal/portal-fetch";

/** What to do about the Connectors API's refusals, added to the route's own message. */
const ADVICE: Record<string, string> = {
  "connector/url-not-allowed": "Use an address on the public internet: Sieve does not deliver to private, loopback or link-local networks.",
  "connector/email-not-configured": "The server has no SMTP settings, so it cannot send email. Ask the operator, or use a webhook or Slack connector.",
  "connector/disabled": "Turn the connector back on first, then replay.",
  "connector/not-found": "Someone may have deleted it meanwhile; the list has been refreshed.",
  "auth/insufficient-permissions": "Changing connectors needs the connectors:write permission (project admins have it).",
};

/** The route's message (zod's "Invalid request: body.url: …" shortened to "url: …"), with advice. */
export function connectorErrorText(error: unknown): string {
  const message = errorMessage(error).replace(/^Invalid request: body\./, "Check ").replace(/^Invalid request: /, "");
  const advice = error instanceof PortalFetchError ? ADVICE[error.code] : undefined;
  return advice ? `${message} ${advice}` : message;
}
