import nodemailer, { type Transporter } from "nodemailer";
import type { SMTPSentMessageInfo } from "nodemailer/lib/smtp-transport";
import { config } from "@/lib/core/config";
import { withTimeout } from "@/lib/core/timeout";
import { errorMessage } from "@/lib/core/errors";
import { processSingleton, singletonGetter } from "@/lib/core/singleton";
import { postWebhook, type WebhookAnswer, type WebhookPostOptions } from "@/lib/net/webhook-post";
import { parseEnvelope, type EnvelopeJson } from "./envelope";
import { emailContent, slackMessage } from "./render";
import { isSuccessStatus } from "./schedule";
import { liveSecrets, signatureHeader, type ConnectorSecrets } from "./signing";

/**
 * One attempt to hand an envelope to a connector. Never throws: every failure (non-2xx, 3xx — no
 * redirect is followed —, timeout, connection error, SSRF refusal, SMTP refusal) comes back as
 * `{ok: false, error}` for the deliveries log. Webhook and Slack URLs go through postWebhook, so the
 * address policy (SIEVE_ALLOW_PRIVATE_NETWORKS) applies to every attempt, checked at connect time.
 */
export interface ConnectorTarget extends ConnectorSecrets {
  id: string;
  projectId: string;
  type: "webhook" | "slack" | "email";
  name: string;
  url: string | null;
  recipients: string[];
}

export interface SendResult {
  ok: boolean;
  /** HTTP status; null without an HTTP answer (and for email). */
  statusCode: number | null;
  error: string | null;
  /** The first ~1 KiB of the response body (HTTP) or the SMTP server's final reply. */
  responseExcerpt: string | null;
}

export const USER_AGENT = "Sieve-Webhooks/1.0";
const EXCERPT_BYTES = 1024;
const JSON_HEADERS = { "content-type": "application/json", "user-agent": USER_AGENT };

export async function sendToConnector(connector: ConnectorTarget, message: EnvelopeJson, timeoutMs: number): Promise<SendResult> {
  try {
    switch (connector.type) {
      case "webhook":
        return await sendWebhook(connector, message, timeoutMs);
      case "slack":
        return await postJson(connector.url, JSON.stringify(slackMessage(parseEnvelope(message))), JSON_HEADERS, timeoutMs);
      case "email":
        return await sendEmail(connector, message, timeoutMs);
    }
  } catch (error) {
    return failure(errorMessage(error));
  }
}

/**
 * The Standard Webhooks request: the envelope's JSON, signed with every live secret. The body is
 * a string: Node then writes the request's head and body in one piece.
 */
export function webhookRequest(connector: ConnectorSecrets, message: EnvelopeJson, nowMs = Date.now()) {
  const body = message.json;
  const timestamp = Math.floor(nowMs / 1000);
  const headers = {
    ...JSON_HEADERS,
    "webhook-id": message.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(liveSecrets(connector, nowMs), message.id, timestamp, body),
  };
  return { body, headers };
}

/**
 * webhookRequest's headers for `body` (message id `msgId`, the envelope's id) as a flat
 * [name, value, ...] list, the form undici takes (sendWebhookPost): a first attempt's hot path.
 */
export function webhookHeaderList(connector: ConnectorSecrets, msgId: string, body: string, nowMs: number): string[] {
  const timestamp = Math.floor(nowMs / 1000);
  const signature = signatureHeader(liveSecrets(connector, nowMs), msgId, timestamp, body);
  return ["content-type", "application/json", "user-agent", USER_AGENT, "webhook-id", msgId, "webhook-timestamp", String(timestamp), "webhook-signature", signature];
}

const postOptions = singletonGetter("connectorPostOptions", () => new Map<number, WebhookPostOptions>());

/** The options of a connector's POST: one object per timeout (the policy is the process's). */
export function connectorPostOptions(timeoutMs: number): WebhookPostOptions {
  const cache = postOptions();
  let options = cache.get(timeoutMs);
  if (!options) cache.set(timeoutMs, (options = { allowPrivateNetworks: config().allowPrivateNetworks, timeoutMs, excerptBytes: EXCERPT_BYTES }));
  return options;
}

/** Never rejects: a refused target or a failed request is a failed result. */
function sendWebhook(connector: ConnectorTarget, message: EnvelopeJson, timeoutMs: number, nowMs = Date.now()): Promise<SendResult> {
  try {
    const { body, headers } = webhookRequest(connector, message, nowMs);
    return postJson(connector.url, body, headers, timeoutMs);
  } catch (error) {
    return Promise.resolve(failure(errorMessage(error)));
  }
}

/** `headers`: the request's headers in full (content-type and user-agent included). */
function postJson(url: string | null, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  if (!url) return Promise.resolve(failure("the connector has no URL"));
  return postWebhook(url, body, headers, connectorPostOptions(timeoutMs)).then(httpResult, failedSend);
}

/** The outcome of an HTTP answer: a 2xx is a success; anything else (a 3xx too: no redirect is followed) a failure. */
export function httpResult(answer: WebhookAnswer): SendResult {
  const ok = isSuccessStatus(answer.status);
  return { ok, statusCode: answer.status, error: ok ? null : httpError(answer.status, answer.location), responseExcerpt: answerExcerpt(answer) };
}

/** The start of the answer's body, for the deliveries log. */
export function answerExcerpt(answer: WebhookAnswer): string | null {
  return answer.excerpt.length === 0 ? null : cleanText(answer.excerpt.toString("utf8"));
}

/** The outcome of a request that got no answer (refused target, timeout, connection error). */
export function failedSend(error: unknown): SendResult {
  return failure(errorMessage(error));
}

function httpError(status: number, location: string | undefined): string {
  if (status === 410) return "HTTP 410 Gone: the endpoint asked for no more deliveries";
  if (status >= 300 && status <= 399) {
    return `HTTP ${status}: redirects are not followed${location ? ` (Location: ${location.slice(0, 200)})` : ""}`;
  }
  return `HTTP ${status}`;
}

/** Text PostgreSQL can store (no NUL), or null when empty. */
function cleanText(text: string): string | null {
  const clean = text.includes("\u0000") ? text.replace(/\u0000/g, "") : text;
  return clean.length > 0 ? clean : null;
}

function failure(error: string): SendResult {
  return { ok: false, statusCode: null, error, responseExcerpt: null };
}

/** One SMTP transport per process and URL (a connection per message; emails are rare). */
function smtpTransport(url: string, timeoutMs: number): Transporter<SMTPSentMessageInfo> {
  const cache = processSingleton("connectorSmtpTransports", () => new Map<string, Transporter<SMTPSentMessageInfo>>());
  const key = `${timeoutMs} ${url}`;
  let transport = cache.get(key);
  if (!transport) {
    transport = nodemailer.createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    cache.set(key, transport);
  }
  return transport;
}

async function sendEmail(connector: ConnectorTarget, message: EnvelopeJson, timeoutMs: number): Promise<SendResult> {
  const { url, from } = config().connectors.smtp;
  if (!url) return failure("email is not configured on the server (SMTP_URL)");
  if (connector.recipients.length === 0) return failure("the connector has no recipients");
  const content = emailContent(parseEnvelope(message));
  try {
    const info = await withTimeout(smtpTransport(url, timeoutMs).sendMail({ from, to: connector.recipients, ...content }), timeoutMs);
    const rejected = info.rejected ?? [];
    const reply = cleanText(`${info.response ?? ""}${rejected.length > 0 ? ` (rejected: ${rejected.join(", ")})` : ""}`.slice(0, EXCERPT_BYTES));
    if ((info.accepted ?? []).length === 0) return { ok: false, statusCode: null, error: "the SMTP server accepted no recipient", responseExcerpt: reply };
    return { ok: true, statusCode: null, error: null, responseExcerpt: reply };
  } catch (error) {
    return failure(`SMTP: ${errorMessage(error)}`);
  }
}

export interface TimedSendResult extends SendResult {
  /** ms since the epoch. */
  startedMs: number;
  latencyMs: number;
}

/**
 * sendToConnector with the attempt's start time and latency, for the deliveries log. A webhook (the
 * hot path of every delivery) goes straight to its POST, without sendToConnector's async layer.
 */
export function timedSend(connector: ConnectorTarget, message: EnvelopeJson, timeoutMs: number): Promise<TimedSendResult> {
  const timer = new SendTimer();
  const sent = connector.type === "webhook" ? sendWebhook(connector, message, timeoutMs, timer.startedMs) : sendToConnector(connector, message, timeoutMs);
  return sent.then((result) => timer.timed(result));
}

class SendTimer {
  readonly startedMs = Date.now();
  readonly started = performance.now();
  timed(result: SendResult): TimedSendResult {
    return { ...result, startedMs: this.startedMs, latencyMs: Math.round(performance.now() - this.started) };
  }
}
