/**
 * `npm start` with WEB_CONCURRENCY > 1: the primary process forks that many API processes sharing
 * the port (node:cluster) and supervises them. It loads no application code itself; the process in
 * slot 0 prepares the database once (migrations, the first admin) and the others open it when told.
 *
 * - a process that dies is replaced (after a second, so a crash loop does not spin);
 * - a process that cannot start (port in use, host unknown) stops the whole service with its one line;
 * - SIGTERM/SIGINT: every process closes its server, lets its webhook attempts finish, and exits 0;
 * - exactly one process (the first slot, and whichever replaces it) runs the in-process webhook
 *   worker (RUN_WORKER=1): on SQLite one claimer per file, on PostgreSQL one pool instead of N. The
 *   others ask the primary to wake it after a commit that queued deliveries;
 * - GET /metrics on any process shows the sum over all of them (prom-client's AggregatorRegistry).
 */
import cluster, { type Worker } from 'node:cluster';
import client from 'prom-client';
import type { Config } from './core/config.js';
import { createLogger, log } from './core/log.js';
import { CLUSTER_METRICS_REPLY, CLUSTER_METRICS_REQUEST } from './core/metrics.js';

/** Worker → primary: it could not start; the line says why. */
export const STARTUP_FAILED = 'netledger:startup-failed';
/** Worker → primary: it is serving. */
export const SERVING = 'netledger:serving';
/** Slot 0 → primary → every other worker: the database is migrated; open it. */
export const DATABASE_READY = 'netledger:database-ready';
/** A worker → primary: is the database ready yet? (a message sent before it listened would be lost) */
export const ASK_DATABASE_READY = 'netledger:database-ready?';
/** A worker → primary → slot 0: wake the webhook worker, deliveries were queued. */
export const WAKE_WORKER = 'netledger:wake-webhook-worker';

const RESTART_DELAY_MS = 1000;

interface Message { type?: string; id?: string; line?: string; code?: number; url?: string }

/** Forks `config.webConcurrency` API processes and supervises them; resolves with the URL once all serve. */
export function superviseCluster(config: Config): Promise<string> {
  const aggregator = new client.AggregatorRegistry();
  const slots = new Map<number, Worker>();
  const slotOf = new Map<Worker, number>();
  const serving = new Set<Worker>();
  let stopping = false;
  let ready = false;
  let databaseReady = false;

  /**
   * A message to an API process that may have died meanwhile (killed, crashed): sending on its
   * closed channel throws, and that error, unhandled, would take the primary and the whole service
   * down with it. A message to a dead process is simply dropped (its replacement starts afresh).
   */
  const send = (worker: Worker | undefined, message: Record<string, unknown>) => {
    if (!worker?.isConnected()) return;
    worker.send(message, (error: Error | null) => {
      if (error) log.warn({ pid: worker.process.pid, err: error.message }, 'a message to an API process was lost');
    });
  };

  return new Promise((resolve) => {
    const fork = (slot: number) => {
      // Only slot 0 runs the webhook worker; RUN_WORKER=0 turns it off for the whole service.
      const worker = cluster.fork({ RUN_WORKER: config.runWorker && slot === 0 ? '1' : '0', NETLEDGER_SLOT: String(slot) });
      slots.set(slot, worker);
      slotOf.set(worker, slot);
      worker.on('message', (message: Message) => onMessage(worker, message));
      // A channel error (the process died while a message was on its way) is its exit's business.
      worker.on('error', (error: Error) => log.warn({ slot, pid: worker.process.pid, err: error.message }, 'API process channel error'));
    };

    const stopAll = (code: number) => {
      if (stopping) return;
      stopping = true;
      const alive = [...slots.values()].filter((w) => !w.isDead());
      if (!alive.length) process.exit(code);
      let left = alive.length;
      for (const w of alive) {
        w.once('exit', () => { if (--left === 0) process.exit(code); });
        w.process.kill('SIGTERM');
      }
      // Attempts in flight may take up to WEBHOOK_TIMEOUT; after that, do not wait any longer.
      setTimeout(() => {
        for (const w of alive) if (!w.isDead()) w.process.kill('SIGKILL');
        process.exit(code);
      }, (config.webhookTimeout + 10) * 1000).unref();
    };

    const onMessage = (worker: Worker, message: Message) => {
      switch (message?.type) {
        case SERVING:
          serving.add(worker);
          if (!ready && serving.size === config.webConcurrency) {
            ready = true;
            resolve(message.url ?? '');
          }
          break;
        case STARTUP_FAILED:
          // One line for the whole service, however many processes hit the same wall.
          if (!stopping) createLogger(config.logFormat, 2).fatal(`cannot start: ${message.line}`);
          stopAll(message.code ?? 1);
          break;
        case DATABASE_READY:
          databaseReady = true;
          for (const [slot, w] of slots) if (slot !== 0) send(w, { type: DATABASE_READY });
          break;
        case ASK_DATABASE_READY:
          if (databaseReady) send(worker, { type: DATABASE_READY });
          break;
        case WAKE_WORKER:
          // Slot 0 may be dead and restarting: its replacement looks for work when its worker starts.
          send(slots.get(0), { type: WAKE_WORKER });
          break;
        case CLUSTER_METRICS_REQUEST:
          aggregator.clusterMetrics().then(
            (text) => send(worker, { type: CLUSTER_METRICS_REPLY, id: message.id, text }),
            (error: Error) => send(worker, { type: CLUSTER_METRICS_REPLY, id: message.id, error: error.message }),
          );
          break;
      }
    };

    cluster.on('exit', (worker, code, signal) => {
      const slot = slotOf.get(worker);
      slotOf.delete(worker);
      serving.delete(worker);
      if (stopping || slot === undefined) return;
      if (!ready) {
        log.fatal({ slot, code, signal }, `cannot start: an API process exited (${signal ?? `code ${code}`}) before it was serving`);
        stopAll(1);
        return;
      }
      log.warn({ slot, pid: worker.process.pid, code, signal }, `API process ${worker.process.pid} died (${signal ?? `code ${code}`}); starting another`);
      setTimeout(() => { if (!stopping) fork(slot); }, RESTART_DELAY_MS);
    });

    const shutdown = (signal: string) => {
      log.info(`${signal}: shutting down ${slots.size} API processes`);
      stopAll(0);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));

    for (let slot = 0; slot < config.webConcurrency; slot++) fork(slot);
  });
}
