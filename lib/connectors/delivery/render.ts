import type { EventFact } from "@/lib/events/catalogue";
import type { WebhookEnvelope } from "./envelope";

/**
 * Human-readable forms of an envelope: a Slack message (incoming-webhook `{text, blocks}`) and an
 * email (subject, plain text and a simple HTML body). Both carry the severity, title, description,
 * facts, asset id and event id; every user-supplied string is escaped for its medium.
 */

const HEADER_MAX = 150; // Slack: header text limit
const SECTION_MAX = 3000; // Slack: section text limit
const SUBJECT_MAX = 200;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function factValue(fact: EventFact): string {
  const { value } = fact;
  if (value === null) return "none";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

function httpUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Slack mrkdwn: only &, < and > need escaping (https://api.slack.com/reference/surfaces/formatting). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const SLACK_MARKER = { high: ":red_circle:", low: ":large_blue_circle:" } as const;

export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

export function slackMessage(envelope: WebhookEnvelope): SlackMessage {
  const { data } = envelope;
  const marker = SLACK_MARKER[data.severity];
  const severity = data.severity === "high" ? "High severity" : "Low severity";
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: clip(`${marker} ${data.title}`, HEADER_MAX), emoji: true } },
  ];
  if (data.description) {
    blocks.push({ type: "section", text: { type: "mrkdwn", text: clip(slackEscape(data.description), SECTION_MAX) } });
  }
  if (data.facts.length > 0) {
    const lines = data.facts.map((fact) => {
      const value = slackEscape(factValue(fact));
      const url = httpUrl(fact.url);
      return `• *${slackEscape(fact.key)}*: ${url ? `<${url.replace(/[|>]/g, encodeURIComponent)}|${value}>` : value}`;
    });
    blocks.push({ type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), SECTION_MAX) } });
  }
  const context = [`*${severity}*`, `\`${slackEscape(envelope.type)}\``];
  if (data.assetId) context.push(`asset \`${data.assetId}\``);
  context.push(`event \`${envelope.id}\``, `project \`${envelope.projectId}\``);
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: context.join(" · ") }] });
  const text = `${marker} [${data.severity}] ${slackEscape(data.title)}${data.description ? ` — ${slackEscape(data.description)}` : ""}`;
  return { text: clip(text, SECTION_MAX), blocks };
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

function htmlEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").trim();
}

export function emailContent(envelope: WebhookEnvelope): EmailContent {
  const { data } = envelope;
  const high = data.severity === "high";
  const subject = clip(oneLine(`[Sieve]${high ? " [High severity]" : ""} ${data.title}`), SUBJECT_MAX);
  const details: [string, string][] = [
    ["Event", `${envelope.type} (${envelope.id})`],
    ["Severity", data.severity],
    ["Project", envelope.projectId],
    ...(data.assetId ? ([["Asset", data.assetId]] as [string, string][]) : []),
    ["Time", new Date(envelope.createdAt).toISOString()],
  ];
  const text = [
    data.title,
    ...(data.description ? ["", data.description] : []),
    ...(data.facts.length > 0 ? ["", "Facts:", ...data.facts.map((f) => `- ${f.key}: ${factValue(f)}`)] : []),
    "",
    ...details.map(([label, value]) => `${label}: ${value}`),
    "",
    "Sent by Sieve.",
  ].join("\n");
  const cell = "padding:2px 12px 2px 0;vertical-align:top";
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif;font-size:14px;color:#222">`,
    `<h2 style="margin:0 0 8px;color:${high ? "#b00020" : "#222"}">${high ? "&#9888; " : ""}${htmlEscape(data.title)}</h2>`,
    data.description ? `<p>${htmlEscape(data.description)}</p>` : "",
    data.facts.length > 0
      ? `<ul>${data.facts.map((f) => `<li><strong>${htmlEscape(f.key)}</strong>: ${htmlEscape(factValue(f))}</li>`).join("")}</ul>`
      : "",
    `<table style="font-size:12px;color:#555">${details
      .map(([label, value]) => `<tr><td style="${cell}">${label}</td><td style="${cell}">${htmlEscape(value)}</td></tr>`)
      .join("")}</table>`,
    `<p style="font-size:12px;color:#888">Sent by Sieve.</p></body></html>`,
  ].join("");
  return { subject, text, html, headers: { "X-Sieve-Event-Id": envelope.id, "X-Sieve-Event-Type": oneLine(envelope.type) } };
}
