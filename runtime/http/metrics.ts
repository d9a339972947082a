/**
 * `GET /metrics`, Prometheus text format. Readable with any valid token, and without one only from
 * the networks in METRICS_ALLOWED (default loopback); anyone else gets a 403.
 *
 * Two kinds of series:
 * - counted in each process (requests, latency, webhook attempts, pools, process metrics): in a
 *   cluster the primary sums the registries of all workers (prom-client's AggregatorRegistry), so
 *   whichever worker answers, the scrape covers the whole service;
 * - read from the database at scrape time (deliveries by state, queue depth, oldest due delivery):
 *   one query by the answering process, the same for all, so never summed.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import client from 'prom-client';
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { CLUSTER_METRICS_REPLY, CLUSTER_METRICS_REQUEST, registry } from '../core/metrics.js';
import { allowedFrom, authenticate } from '../auth/authenticate.js';
import { model } from '../data/registry.js';
import type { Services } from './state.js';

const CLUSTER_TIMEOUT_MS = 5000;

if (cluster.isWorker) {
  // Answers the primary's requests for this worker's registry.
  new client.AggregatorRegistry();
  client.AggregatorRegistry.setRegistries([registry]);
}

/** This process's registry, or in a cluster worker the sum over every worker (asked of the primary). */
function processMetrics(): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { process.off('message', onReply); reject(new Error('the cluster primary did not send metrics in time')); }, CLUSTER_TIMEOUT_MS);
    function onReply(message: { type?: string; id?: string; text?: string; error?: string }) {
      if (message?.type !== CLUSTER_METRICS_REPLY || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onReply);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.text ?? '');
    }
    process.on('message', onReply);
    process.send!({ type: CLUSTER_METRICS_REQUEST, id });
  });
}

/** Series read from the webhook queue; a fresh registry per scrape, since they are not counters. */
async function queueMetrics(db: Knex): Promise<string> {
  const table = model('WebhookDelivery').definition.table;
  const queueRegistry = new client.Registry();
  const now = new Date();
  const [byState, waiting, due] = await Promise.all([
    db(table).select('state').count('* as n').groupBy('state'),
    db(table).whereNotNull('next_attempt_at').count('* as n').first(),
    db(table).where('next_attempt_at', '<=', now.toISOString()).count('* as n').min('next_attempt_at as oldest').first(),
  ]);
  const deliveries = new client.Gauge({ name: 'netledger_webhook_deliveries', help: 'Webhook deliveries stored, by state', labelNames: ['state'], registers: [queueRegistry] });
  for (const state of ['queued', 'succeeded', 'failed']) deliveries.set({ state }, 0);
  for (const row of byState as { state: string | null; n: unknown }[]) deliveries.set({ state: row.state ?? 'unknown' }, Number(row.n));
  new client.Gauge({ name: 'netledger_webhook_queue_depth', help: 'Deliveries with an attempt still to make (due now or scheduled for a retry)', registers: [queueRegistry] }).set(Number(waiting?.n ?? 0));
  new client.Gauge({ name: 'netledger_webhook_queue_due', help: 'Deliveries whose next attempt is due now', registers: [queueRegistry] }).set(Number(due?.n ?? 0));
  const oldest = due?.oldest ? (now.getTime() - Date.parse(String(due.oldest))) / 1000 : 0;
  new client.Gauge({ name: 'netledger_webhook_queue_oldest_age_seconds', help: 'How long the longest-waiting due delivery has been due (0: none is)', registers: [queueRegistry] }).set(Math.max(0, oldest));
  return queueRegistry.metrics();
}

/** Without a token, only from METRICS_ALLOWED; with one, from anywhere (a bad token is a 403 as usual). */
async function mayRead(ctx: Context, { db, config, peppers }: Services): Promise<boolean> {
  if (allowedFrom(ctx.ip, config.metricsAllowed)) return true;
  const auth = await authenticate(db, ctx.get('Authorization') || undefined, new Date(), ctx.ip, peppers);
  return auth.user !== null;
}

/** Answers GET /metrics (the path Prometheus scrapes, no trailing slash); passes anything else on. */
export function metricsEndpoint(services: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!(await mayRead(ctx, services))) {
      throw errors.forbidden('Metrics are readable without a token only from the addresses in METRICS_ALLOWED.');
    }
    const [own, queue] = await Promise.all([processMetrics(), queueMetrics(services.db)]);
    ctx.set('Content-Type', registry.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = `${own.trimEnd()}\n${queue}`;
  };
}
