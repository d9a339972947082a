/**
 * Delivery: the worker that works off the queue. It runs inside `npm start` (RUN_WORKER=1) and as
 * `npm run worker`; several may share one PostgreSQL.
 *
 * - Woken right after a commit that queued deliveries (in-process), by NOTIFY from other processes
 *   (PostgreSQL), by a timer for the next scheduled retry, and by a poll every second as a safety net.
 *   The poll reads through a connection of its own, so an idle worker never touches the one the API
 *   writes through.
 * - Claims due rows by setting a lease: on PostgreSQL `UPDATE … WHERE id IN (SELECT … FOR UPDATE
 *   SKIP LOCKED LIMIT n) RETURNING *`, so each row goes to one worker; on SQLite the same UPDATE, which
 *   SQLite runs alone. It holds at most two rounds of its concurrency, claiming again when half a
 *   round is left waiting, and records finished attempts in batches (one transaction each), so a busy
 *   queue costs a few statements per round rather than per delivery.
 * - An expired lease (a worker that died) makes a row claimable again: delivery is at least once and
 *   `webhook-id` lets receivers drop duplicates. At start, leases held by dead processes of this host
 *   are released at once.
 * - Sends with bounded concurrency (p-queue); a 2xx succeeds; anything else is a failed attempt,
 *   retried after the next delay of the schedule; after the last, the delivery stays failed.
 * - Prunes succeeded deliveries older than WEBHOOK_PRUNE_AFTER days, at start and hourly.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import PQueue from 'p-queue';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { log } from '../core/log.js';
import { trackPool, untrackPool, webhookAttempts, type AttemptOutcome } from '../core/metrics.js';
import { model, type Row } from '../data/registry.js';
import { deliver, type Outcome } from './deliver.js';
import { Agents } from './send.js';
import { isPostgres, openDatabase } from '../data/db.js';
import { queued } from './channel.js';
import { QueueListener } from './listen.js';
import { claimDue, releaseDeadLeases, releaseRows } from './leases.js';

export interface WorkerOptions {
  concurrency: number;
  timeoutSeconds: number;
  /** seconds to wait after the 1st, 2nd, … failed attempt; empty: no automatic retry */
  retrySchedule: number[];
  /** days a succeeded delivery is kept; 0 keeps it */
  pruneAfterDays: number;
  /** one line per attempt */
  log: boolean;
  pollMs?: number;
}

export interface WorkerSetup {
  /** where rows are claimed and attempts recorded */
  db: Knex;
  /** where idle polls read (default: db) */
  probe?: Knex;
  /** instances this worker opened, closed when it stops */
  owned?: Knex[];
  /** PostgreSQL: LISTEN for other processes' commits */
  listen?: { url: string; schema: string | null } | null;
}

const ATTEMPTS_KEPT = 25;
const PRUNE_EVERY_MS = 3_600_000;
const LEASE_MARGIN_MS = 30_000;
/** Attempts recorded in one transaction at most. */
const RECORD_BATCH = 200;

let running = 0;

/** Workers running in this process (GET /api/status/ shows it as rq-workers-running). */
export function runningWorkers(): number {
  return running;
}

function outcomeOf({ ok, attempt }: Outcome): AttemptOutcome {
  return ok ? 'success' : attempt.status_code === null ? 'network_error' : 'http_error';
}

export class WebhookWorker {
  /** lease owner: host/pid/random, so a restarted process can tell its dead predecessor's leases */
  readonly owner = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  private readonly queue: PQueue;
  private readonly agents = new Agents();
  private readonly db: Knex;
  private readonly probe: Knex;
  private readonly table = model('WebhookDelivery').definition.table;
  private started = false;
  private stopped = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private backlog = false;
  private polling = false;
  private pollFailures = 0;
  private seen = -1;
  private pollTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private dueTime = Infinity;
  private listener: QueueListener | null = null;
  private results: { row: Row; webhook: Row; outcome: Outcome }[] = [];
  /** claimed rows whose attempt has not started yet, released if the worker stops first */
  private waiting = new Map<number, Row>();
  private flushing: Promise<void> | null = null;

  constructor(private readonly setup: WorkerSetup, private readonly options: WorkerOptions) {
    this.db = setup.db;
    this.probe = setup.probe ?? setup.db;
    this.queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Rows claimed and not yet finished, at most: two rounds of the concurrency. */
  private get capacity(): number {
    return this.options.concurrency * 2;
  }

  /** A claimed row may wait one round of (timed-out) requests before its own starts. */
  private get leaseMs(): number {
    return 2 * this.options.timeoutSeconds * 1000 + LEASE_MARGIN_MS;
  }

  async start(): Promise<void> {
    this.started = true;
    running++;
    trackPool('webhook-worker', this.db);
    await releaseDeadLeases(this.db, this.table);
    await this.prune().catch((error) => this.warn('pruning deliveries', error));
    if (this.setup.listen) {
      this.listener = new QueueListener(this.setup.listen.url, this.setup.listen.schema, () => this.wake(true), (error) => this.warn('the LISTEN connection', error));
      await this.listener.connect();
    }
    this.pollTimer = setInterval(() => void this.poll(), this.options.pollMs ?? 1000);
    this.pruneTimer = setInterval(() => void this.prune().catch((error) => this.warn('pruning deliveries', error)), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    this.wake(true);
  }

  /** Looks for work; without `force`, only if this process queued deliveries since the last look. */
  wake(force = false): void {
    if (this.stopped) return;
    if (!force && queued.generation === this.seen) return;
    this.seen = queued.generation;
    void this.tick();
  }

  /** Stops claiming, waits (up to the request timeout) for the attempts in flight, closes what it opened. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.started) running--;
    clearInterval(this.pollTimer);
    clearInterval(this.pruneTimer);
    clearTimeout(this.dueTimer);
    await this.listener?.close();
    this.listener = null;
    await this.ticking;
    this.queue.clear();
    await this.release([...this.waiting.values()]).catch((error) => this.warn('releasing leases', error));
    this.waiting.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue.onIdle(), new Promise((resolve) => { timer = setTimeout(resolve, this.options.timeoutSeconds * 1000 + 1000); })]);
    clearTimeout(timer);
    await this.flushing;
    this.agents.destroy();
    untrackPool('webhook-worker');
    for (const db of this.setup.owned ?? []) await db.destroy();
  }

  /** Leases up to `limit` due deliveries for this worker and returns them. */
  claim(limit: number): Promise<Row[]> {
    return claimDue(this.db, this.table, this.owner, limit, this.leaseMs);
  }

  /** Deletes succeeded deliveries last updated before the retention period; returns how many. */
  async prune(now = new Date()): Promise<number> {
    if (!(this.options.pruneAfterDays > 0)) return 0;
    const cutoff = new Date(now.getTime() - this.options.pruneAfterDays * 86_400_000).toISOString();
    return this.db(this.table).where('state', 'succeeded').where('last_updated', '<', cutoff).delete();
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    // `.finally` runs after the assignment below even when the loop finishes without awaiting.
    const run = (async () => {
      try {
        do {
          this.again = false;
          const room = this.capacity - this.queue.size - this.queue.pending;
          if (room <= 0) {
            this.backlog = true;
            break;
          }
          const rows = await this.claim(room);
          this.backlog = rows.length === room;
          if (this.stopped) {
            await this.release(rows);
            break;
          }
          if (rows.length) await this.dispatch(rows);
        } while (this.again && !this.stopped);
      } catch (error) {
        this.warn('claiming deliveries', error);
      }
    })().finally(() => { this.ticking = null; });
    this.ticking = run;
    return run;
  }

  private async dispatch(rows: Row[]): Promise<void> {
    const ids = [...new Set(rows.map((r) => Number(r.webhook_id)))];
    const webhooks = new Map<number, Row>((await this.db(model('Webhook').definition.table).whereIn('id', ids)).map((w: Row) => [Number(w.id), w]));
    for (const row of rows) {
      const webhook = webhooks.get(Number(row.webhook_id));
      if (!webhook) continue;
      this.waiting.set(Number(row.id), row);
      void this.queue.add(() => this.process(row, webhook));
    }
  }

  private async process(row: Row, webhook: Row): Promise<void> {
    this.waiting.delete(Number(row.id));
    const outcome = await deliver(webhook, row, { timeoutMs: this.options.timeoutSeconds * 1000, agents: this.agents });
    this.results.push({ row, webhook, outcome });
    this.flushing ??= this.flush();
    // Claim again once no more than half a round is left waiting.
    if (this.backlog && this.queue.size <= this.options.concurrency / 2) this.wake(true);
  }

  /** Writes finished attempts, a batch per transaction; the row keeps its lease until then. */
  private async flush(): Promise<void> {
    try {
      await new Promise((resolve) => setTimeout(resolve, 2));
      while (this.results.length) {
        const batch = this.results.splice(0, RECORD_BATCH);
        const now = Date.now();
        const updates = batch.map(({ row, outcome }) => {
          let attempts: unknown[] = [];
          try { attempts = JSON.parse(row.attempts ?? '[]'); } catch { /* a damaged list starts over */ }
          const count = Number(row.attempt_count ?? 0) + 1;
          const delay = outcome.ok ? undefined : this.options.retrySchedule[count - 1];
          return {
            id: row.id,
            next: delay === undefined ? null : now + delay * 1000,
            values: {
              // A failure with another attempt scheduled is 'retrying'; 'failed' is final.
              state: outcome.ok ? 'succeeded' : delay === undefined ? 'failed' : 'retrying',
              attempts: JSON.stringify([...attempts, outcome.attempt].slice(-ATTEMPTS_KEPT)),
              attempt_count: count,
              next_attempt_at: delay === undefined ? null : new Date(now + delay * 1000).toISOString(),
              lease_owner: null,
              lease_expires_at: null,
              last_updated: new Date(now).toISOString(),
            },
          };
        });
        try {
          await this.db.transaction(async (trx) => {
            for (const u of updates) await trx(this.table).where({ id: u.id, lease_owner: this.owner }).update(u.values);
          });
        } catch (error) {
          // The rows keep their leases and are sent again once those expire (at least once).
          this.warn(`recording ${batch.length} attempts`, error);
          continue;
        }
        for (const u of updates) if (u.next !== null) this.dueAt(u.next);
        for (const { row, webhook, outcome } of batch) {
          const result = outcomeOf(outcome);
          webhookAttempts.inc({ outcome: result });
          if (!this.options.log) continue;
          const a = outcome.attempt;
          // The URL is left out: it may carry credentials. The webhook's name says which one it was.
          log.info({ webhook: webhook.name, delivery: Number(row.id), event: row.event, objectType: row.object_type, objectId: Number(row.object_id), outcome: result, statusCode: a.status_code, durationMs: a.duration_ms, error: a.error ?? undefined },
            `webhook '${webhook.name}' delivery ${row.id}: ${a.status_code ?? '-'} ${a.error ?? 'ok'} ${a.duration_ms}ms`);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private release(rows: Row[]): Promise<void> {
    return releaseRows(this.db, this.table, this.owner, rows);
  }

  /** The earliest due time of a claimable row, read on the probe connection; wakes or sets a timer. */
  private async poll(): Promise<void> {
    if (this.stopped || this.polling) return;
    this.polling = true;
    try {
      const now = new Date().toISOString();
      const row = await this.probe(this.table).min('next_attempt_at as next').whereNotNull('next_attempt_at')
        .where((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', now)).first();
      const next = row?.next as string | null | undefined;
      this.pollFailures = 0;
      if (next) {
        if (next <= now) this.wake(true);
        else this.dueAt(Date.parse(next));
      }
    } catch (error) {
      // A poll is only the safety net: say so when it keeps failing, not at the first hiccup.
      if (!this.stopped && ++this.pollFailures % 60 === 3) this.warn(`polling the queue (${this.pollFailures} times in a row)`, error);
    } finally {
      this.polling = false;
    }
  }

  private dueAt(at: number): void {
    if (this.stopped || (this.dueTimer && this.dueTime <= at)) return;
    clearTimeout(this.dueTimer);
    this.dueTime = at;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = undefined;
      this.dueTime = Infinity;
      this.wake(true);
    }, Math.max(0, at - Date.now()) + 5);
  }

  private warn(what: string, error: unknown): void {
    log.warn({ worker: this.owner, err: (error as Error)?.message ?? String(error) }, `webhook worker: ${what} failed`);
  }
}

export function workerOptions(config: Config): WorkerOptions {
  return {
    concurrency: config.webhookConcurrency,
    timeoutSeconds: config.webhookTimeout,
    retrySchedule: config.webhookRetrySchedule,
    pruneAfterDays: config.webhookPruneAfter,
    log: config.logRequests,
  };
}

/**
 * Starts a worker beside `db` (the service's own connection). On PostgreSQL it gets a pool and a
 * LISTEN connection of its own; on SQLite it claims through `db` (SQLite has one writer, and one
 * connection per process keeps writers out of each other's way) and polls through a second
 * connection that only reads.
 */
export async function startWorker(config: Config, db: Knex, overrides: Partial<WorkerOptions> = {}): Promise<WebhookWorker> {
  const options = { ...workerOptions(config), ...overrides };
  let setup: WorkerSetup;
  if (isPostgres(db)) {
    const own = openDatabase(config);
    setup = { db: own, owned: [own], listen: { url: config.databaseUrl!, schema: config.databaseSchema } };
  } else {
    const probe = openDatabase(config);
    setup = { db, probe, owned: [probe] };
  }
  const worker = new WebhookWorker(setup, options);
  try {
    await worker.start();
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return worker;
}
