/**
 * One delivery attempt: build the request from the webhook and the queued context (templates,
 * headers, signatures), send it, and describe the outcome. Never throws: a template error, a bad
 * header line, a refused connection or a timeout is a failed attempt with its message.
 */
import type { Row } from '../data/registry.js';
import { render } from './template.js';
import { hookSignature, standardSignature } from './sign.js';
import { send, TimeoutError, type Agents, type OutboundRequest } from './send.js';

export interface Attempt {
  time: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface Outcome {
  ok: boolean;
  attempt: Attempt;
}

export interface DeliverOptions {
  timeoutMs: number;
  agents: Agents;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `Name: Value` lines (blank lines ignored); a later header replaces an earlier one of the same name. */
export function parseHeaders(text: string): [string, string][] {
  const headers: [string, string][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!name) throw new Error(`additional_headers: "${line.trim().slice(0, 100)}" is not a "Name: Value" line`);
    setHeader(headers, name, line.slice(colon + 1).trim());
  }
  return headers;
}

function setHeader(headers: [string, string][], name: string, value: string): void {
  const i = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  if (i >= 0) headers.splice(i, 1);
  headers.push([name, value]);
}

/** The exact request a webhook sends for a queued delivery (the attempt time goes into webhook-timestamp). */
export async function buildRequest(webhook: Row, delivery: Row, now: Date): Promise<OutboundRequest> {
  const templates = [webhook.payload_url, webhook.additional_headers, webhook.body_template].map((t) => String(t ?? ''));
  // The stored context is parsed only when a template needs it; the default body is the stored text.
  const stored = typeof delivery.payload === 'string' ? delivery.payload : JSON.stringify(delivery.payload);
  const context = (templates.some((t) => t.includes('{')) ? JSON.parse(stored) : {}) as Record<string, unknown>;
  const method = String(webhook.http_method || 'POST').toUpperCase();
  if (!METHODS.includes(method)) throw new Error(`http_method: ${method} is not one of ${METHODS.join(', ')}`);
  const target = (await render(String(webhook.payload_url ?? ''), context, 'payload_url')).trim();
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`payload_url: "${target.slice(0, 200)}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`payload_url: ${url.protocol} URLs are not supported (use http or https)`);
  const headers: [string, string][] = [['Content-Type', String(webhook.http_content_type || 'application/json')], ['User-Agent', 'NetLedger-Webhooks']];
  for (const [name, value] of parseHeaders(await render(String(webhook.additional_headers ?? ''), context, 'additional_headers'))) setHeader(headers, name, value);
  const template = String(webhook.body_template ?? '');
  const body = Buffer.from(template.trim() ? await render(template, context, 'body_template') : stored, 'utf8');
  const secret = String(webhook.secret ?? '');
  const id = String(delivery.message_id);
  const timestamp = Math.floor(now.getTime() / 1000);
  setHeader(headers, 'webhook-id', id);
  setHeader(headers, 'webhook-timestamp', String(timestamp));
  if (secret) {
    setHeader(headers, 'X-Hook-Signature', hookSignature(secret, body));
    setHeader(headers, 'webhook-signature', standardSignature(secret, id, timestamp, body));
  }
  return { method, url, headers, body };
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `timed out after ${timeoutMs / 1000} s`;
  const e = error as NodeJS.ErrnoException;
  const message = e?.message ?? String(error);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

export async function deliver(webhook: Row, delivery: Row, options: DeliverOptions): Promise<Outcome> {
  const now = new Date();
  const started = performance.now();
  const attempt = (fields: Partial<Attempt>): Attempt => ({
    time: now.toISOString(), status_code: null, duration_ms: Math.round(performance.now() - started), error: null, response_excerpt: null, ...fields,
  });
  try {
    const request = await buildRequest(webhook, delivery, now);
    const tls = { sslVerification: webhook.ssl_verification === true || webhook.ssl_verification === 1 || webhook.ssl_verification === '1', caFilePath: webhook.ca_file_path || null };
    const response = await send(request, tls, options.timeoutMs, options.agents);
    const ok = response.status >= 200 && response.status < 300;
    return { ok, attempt: attempt({ status_code: response.status, error: ok ? null : `HTTP ${response.status}`, response_excerpt: response.excerpt }) };
  } catch (error) {
    return { ok: false, attempt: attempt({ error: describe(error, options.timeoutMs) }) };
  }
}
