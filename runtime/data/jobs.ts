/**
 * Jobs (core/jobs): background work about one object, such as a data source's sync. A job is
 * queued as a `pending` row; one process claims it by moving it to `running` in a single UPDATE
 * (PostgreSQL: FOR UPDATE SKIP LOCKED, so processes on one database never take the same job;
 * SQLite runs the UPDATE alone), runs the `jobs` hook its object's model names, and ends it as
 * `completed` (the result in `data`) or `errored` (the message in `error`).
 *
 * The process that queues a job starts it at once; a runner in each process with RUN_WORKER (and in
 * `npm run worker`) also polls for pending jobs (those whose process went away first) and ends jobs left `running` past
 * twice the time limit by a process that stopped.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ModelEntry } from '../core/types.js';
import { log } from '../core/log.js';
import { byContentType, hooksOf, model, type Row } from './registry.js';
import { isPostgres } from './db.js';
import { insertReturning } from './insert.js';

const STALE_MARGIN_MS = 60_000;
/** How often a process with the worker looks for pending jobs. */
export const JOB_POLL_MS = 2000;

function table(): string {
  return model('Job').definition.table;
}

function rowsOf(result: unknown): Row[] {
  return Array.isArray(result) ? result : ((result as { rows?: Row[] }).rows ?? []);
}

/** Queues a job about `objectId` of `entry`, for the hook function `name`. */
export async function enqueueJob(db: Knex, entry: ModelEntry, objectId: number, name: string, userId: number | null): Promise<Row> {
  const [job] = await insertReturning(db, table(), [{
    object_type: entry.definition.contentType, object_id: objectId, name, status: 'pending',
    created: new Date().toISOString(), user_id: userId, job_id: randomUUID(), error: '',
  }]);
  return job as Row;
}

/** Claims one due pending job (that one only, with `id`) for this process; null when there is none. */
export async function claimJob(db: Knex, id?: number): Promise<Row | null> {
  const now = new Date().toISOString();
  const skipLocked = isPostgres(db) ? ' for update skip locked' : '';
  const only = id === undefined ? '' : ' and id = ?';
  const result = await db.raw(
    `update ?? set status = 'running', started = ? where id in (select id from ?? where status = 'pending' and (scheduled is null or scheduled <= ?)${only} order by id limit 1${skipLocked}) and status = 'pending' returning *`,
    [table(), now, table(), now, ...(id === undefined ? [] : [id])],
  );
  return rowsOf(result)[0] ?? null;
}

async function finish(db: Knex, job: Row, values: Row): Promise<void> {
  await db(table()).where({ id: job.id, status: 'running' }).update({ ...values, completed: new Date().toISOString() });
}

/** Runs a claimed job to its end; never throws. */
export async function runJob(db: Knex, job: Row, timeoutMs: number): Promise<void> {
  try {
    const entry = byContentType.get(String(job.object_type));
    const handler = entry && hooksOf(entry).map((h) => h.jobs?.[String(job.name)]).find(Boolean);
    if (!entry || !handler) throw new Error(`No job '${job.name}' is known for ${job.object_type}.`);
    const row = (await db(entry.definition.table).where('id', job.object_id).first()) ?? null;
    const result = await handler({ db, entry, row, job, timeoutMs });
    await finish(db, job, { status: 'completed', data: result === undefined ? null : JSON.stringify(result) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await finish(db, job, { status: 'errored', error: message }).catch((e) => log.warn({ err: e, job: job.id }, 'recording a job error failed'));
  }
}

/** Ends jobs left running by a process that stopped (started more than twice the time limit ago). */
async function endStale(db: Knex, timeoutMs: number): Promise<void> {
  const before = new Date(Date.now() - 2 * timeoutMs - STALE_MARGIN_MS).toISOString();
  await db(table()).where('status', 'running').where('started', '<', before)
    .update({ status: 'errored', completed: new Date().toISOString(), error: 'The process running this job stopped before it ended.' });
}

/** This process's job runner: starts jobs it queued, and with `poll` looks for others'. */
export class JobRunner {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling = false;

  constructor(private readonly db: Knex, readonly timeoutMs: number) {}

  start(pollMs: number | null): this {
    runners.set(this.db, this);
    if (pollMs) {
      this.timer = setInterval(() => { if (!this.polling) this.track(this.poll()); }, pollMs);
      this.timer.unref();
    }
    return this;
  }

  /** Claims and runs the job `id`, unless another process took it first. */
  soon(id: number): void {
    this.track(claimJob(this.db, id).then((job) => (job ? runJob(this.db, job, this.timeoutMs) : undefined)));
  }

  private track(work: Promise<void>): void {
    const p = work.catch((error) => log.warn({ err: error }, 'a job could not start')).finally(() => this.running.delete(p));
    this.running.add(p);
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    this.polling = true;
    try {
      await endStale(this.db, this.timeoutMs);
      for (let job = await claimJob(this.db); job && !this.stopped; job = await claimJob(this.db)) await runJob(this.db, job, this.timeoutMs);
    } catch (error) {
      log.warn({ err: error }, 'polling for jobs failed');
    } finally {
      this.polling = false;
    }
  }

  /** Stops polling and waits for the jobs this process runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (runners.get(this.db) === this) runners.delete(this.db);
    while (this.running.size) await Promise.all([...this.running]);
  }
}

const runners = new WeakMap<Knex, JobRunner>();

/** Starts job `id` in this process, through the runner of `db` (none: the next poll of any process takes it). */
export function startJob(db: Knex, id: number): void {
  runners.get(db)?.soon(id);
}
