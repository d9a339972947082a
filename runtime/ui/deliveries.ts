/**
 * `/extras/webhook-deliveries/`: the queue and its history, filtered by state, webhook, object type
 * and event; `/<id>/` shows the request, every attempt (status, error, response excerpt) and a Retry
 * button, and tells "will retry at …" (state retrying) apart from "failed for good" (state failed).
 */
import { byContentType, choiceSet, storedField } from '../data/registry.js';
import { actionView } from '../http/actions.js';
import { callView, errorText } from './api-call.js';
import { may, readForm } from './page.js';
import { sendPage } from './render.js';
import { forbidden, notFound } from './objects.js';
import { pageUrl } from './values.js';
import type { UiContext } from './context.js';

const DELIVERY_TYPE = 'extras.webhookdelivery';
const WEBHOOK_TYPE = 'extras.webhook';
const BASE = '/extras/webhook-deliveries/';
const DETAIL = /^\/extras\/webhook-deliveries\/(\d{1,15})\/(retry\/)?$/;
const FILTERS = ['state', 'webhook_id', 'object_type', 'event', 'q'];
const BADGE: Record<string, string> = { queued: 'blue', succeeded: 'green', retrying: 'yellow', failed: 'red' };

const when = (v: unknown) => (v ? String(v).replace('T', ' ').slice(0, 19) : '');

function stateText(d: Record<string, any>): string {
  const state = d.state?.value;
  if (state === 'retrying') return `Failed; will retry at ${when(d.next_attempt_at)}`;
  if (state === 'failed') return 'Failed for good: no retry is scheduled';
  if (state === 'queued') return d.next_attempt_at ? `Queued for ${when(d.next_attempt_at)}` : 'Queued';
  if (state === 'succeeded') return `Delivered after ${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}`;
  return d.state?.label ?? String(state);
}

function summary(d: Record<string, any>) {
  return {
    id: d.id, url: `${BASE}${d.id}/`, webhook: d.webhook?.display ?? '', webhookUrl: pageUrl(d.webhook?.url), event: d.event?.label ?? d.event,
    object: `${d.object_type} ${d.object_repr || d.object_id}`, created: when(d.created), state: d.state?.label, badge: BADGE[d.state?.value] ?? 'secondary',
    status: stateText(d), attempts: d.attempt_count,
  };
}

/** Handles the delivery pages; false for any other path. */
export async function deliveryPages(ui: UiContext): Promise<boolean> {
  const { ctx, page, services, api, session } = ui;
  if (!ctx.path.startsWith(BASE)) return false;
  const entry = byContentType.get(DELIVERY_TYPE);
  if (!entry) return false;
  if (!may(ctx, entry, 'view', services)) {
    forbidden(ctx, page);
    return true;
  }
  const v = api.get(entry)!;
  if (ctx.path === BASE) {
    const params = ctx.URL.searchParams;
    const query = new URLSearchParams();
    for (const k of FILTERS) for (const value of params.getAll(k)) if (value) query.append(k, value);
    const pageNumber = Math.max(1, Number(params.get('page')) || 1);
    query.set('limit', '50');
    query.set('offset', String((pageNumber - 1) * 50));
    const result = await callView(ctx, v.list, { query });
    const webhookEntry = byContentType.get(WEBHOOK_TYPE);
    const hooks = webhookEntry ? await callView(ctx, api.get(webhookEntry)!.list, { query: new URLSearchParams({ brief: '1', limit: '500' }) }) : null;
    const field = (name: string) => storedField(entry, entry.definition.fields[name]);
    const option = (name: string) => choiceSet(field(name).choices!).choices.map((c) => ({ value: String(c.value), label: c.label, selected: params.getAll(name).includes(String(c.value)) }));
    const count = result.ok ? result.body.count : 0;
    const more = new URLSearchParams(params);
    more.set('page', String(pageNumber + 1));
    sendPage(ctx, { ...page, title: 'Webhook deliveries' }, 'deliveries', {
      error: result.ok ? '' : errorText(result.error),
      deliveries: result.ok ? (result.body.results as Record<string, any>[]).map(summary) : [],
      count, states: option('state'), events: option('event'), objectType: params.get('object_type') ?? '',
      webhooks: hooks?.ok ? (hooks.body.results as { id: number; display: string }[]).map((h) => ({ value: String(h.id), label: h.display, selected: params.get('webhook_id') === String(h.id) })) : [],
      next: result.ok && result.body.next ? `?${more}` : null,
    });
    return true;
  }
  const m = DETAIL.exec(ctx.path);
  if (!m) {
    notFound(ctx, page);
    return true;
  }
  const [, id, retry] = m;
  const messages: { text: string; kind: string }[] = [];
  if (retry) {
    if (ctx.method !== 'POST') {
      notFound(ctx, page);
      return true;
    }
    await readForm(ctx, session);
    const extra = entry.routes.extra.find((e) => e.hook === 'retry_delivery' || e.path.endsWith('/retry/'));
    const result = extra ? await callView(ctx, actionView(entry, extra, services), { params: { id }, path: `${BASE}${id}/retry/` }) : null;
    if (result?.ok) {
      ctx.status = 303;
      ctx.redirect(`${BASE}${id}/?retried=1`);
      return true;
    }
    messages.push({ text: result ? errorText(result.error) : 'This delivery cannot be retried.', kind: 'danger' });
  }
  const found = await callView(ctx, v.retrieve, { params: { id } });
  if (!found.ok) {
    notFound(ctx, page);
    return true;
  }
  const d = found.body as Record<string, any>;
  if (ctx.URL.searchParams.get('retried')) messages.push({ text: 'The delivery is queued again.', kind: 'success' });
  const webhookEntry = byContentType.get(WEBHOOK_TYPE);
  const webhook = webhookEntry && d.webhook?.id ? await callView(ctx, api.get(webhookEntry)!.retrieve, { params: { id: String(d.webhook.id) } }) : null;
  const state = d.state?.value;
  sendPage(ctx, { ...page, title: `Delivery ${d.id}`, messages: [...page.messages, ...messages] }, 'delivery', {
    ...summary(d),
    messageId: d.message_id,
    requestId: d.request_id,
    method: webhook?.ok ? webhook.body.http_method : '',
    target: webhook?.ok ? webhook.body.payload_url : '',
    payload: JSON.stringify(d.payload, null, 2),
    attemptList: ((d.attempts ?? []) as Record<string, any>[]).map((a, i) => ({
      n: i + 1, time: when(a.time), statusCode: a.status_code ?? '—', duration: a.duration_ms ?? '', error: a.error ?? '', excerpt: a.response_excerpt ?? '', ok: !a.error,
    })),
    retryable: (state === 'failed' || state === 'retrying') && may(ctx, entry, 'change', services),
    retryUrl: `${BASE}${id}/retry/`,
    csrf: page.csrf,
    csrfField: page.csrfField,
  }, messages.some((x) => x.kind === 'danger') ? 409 : 200);
  return true;
}
