/**
 * The process's Prometheus metrics (prom-client), defined here, low in the layers, so the HTTP layer
 * and the webhook worker can both count into them. GET /metrics (runtime/http/metrics.ts) serves
 * them; under `npm start` with several processes the cluster primary sums every process's registry
 * (runtime/cluster.ts), so one scrape sees the whole service.
 */
import client from 'prom-client';
import type { Knex } from 'knex';

/** Everything counted inside one process: summed across the cluster's processes on a scrape. */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'netledger_' });

const LABELS = ['method', 'route', 'status'] as const;

export const httpRequests = new client.Counter({
  name: 'netledger_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status',
  labelNames: LABELS,
  registers: [registry],
});

export const httpDuration = new client.Histogram({
  name: 'netledger_http_request_duration_seconds',
  help: 'Time from request to response, by route template, method and status',
  labelNames: LABELS,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** success: a 2xx; http_error: any other status; network_error: no answer (refused, timeout, TLS). */
export type AttemptOutcome = 'success' | 'http_error' | 'network_error';

export const webhookAttempts = new client.Counter({
  name: 'netledger_webhook_attempts_total',
  help: 'Webhook delivery attempts made by the webhook workers of this service, by outcome',
  labelNames: ['outcome'],
  registers: [registry],
});

const pools = new Map<string, Knex>();

/** Reports a connection pool in netledger_db_pool_connections (the API's, the worker's). */
export function trackPool(name: string, db: Knex): void {
  pools.set(name, db);
}

export function untrackPool(name: string): void {
  pools.delete(name);
}

interface TarnPool { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number }

new client.Gauge({
  name: 'netledger_db_pool_connections',
  help: 'Database connections by pool and state (used, free, pending acquires, max)',
  labelNames: ['pool', 'state'],
  registers: [registry],
  collect() {
    this.reset();
    for (const [name, db] of pools) {
      const pool = (db.client as { pool?: TarnPool }).pool;
      if (!pool) continue;
      this.set({ pool: name, state: 'used' }, pool.numUsed());
      this.set({ pool: name, state: 'free' }, pool.numFree());
      this.set({ pool: name, state: 'pending' }, pool.numPendingAcquires());
      this.set({ pool: name, state: 'max' }, pool.max);
    }
  },
});

/** IPC between a cluster worker serving GET /metrics and the primary that sums every worker's registry. */
export const CLUSTER_METRICS_REQUEST = 'netledger:metrics-request';
export const CLUSTER_METRICS_REPLY = 'netledger:metrics-reply';
