/**
 * Data sources: a local source's URL is a path or file://; a git source's parameters are branch,
 * username and password; an amazon-s3 source's URL names a bucket and prefix, its parameters are
 * the access key id and secret key. POST /sync/ queues a sync job and starts it in this process; the job
 * fetches the files (core/source-files.ts, under DATA_SOURCE_SYNC_TIMEOUT) and makes the source's
 * data files match them: new paths added, changed ones (by SHA-256) rewritten, missing ones removed.
 * The source reads `queued`, `syncing`, then `completed` or `failed`; the job ends `completed` with
 * the counts, or `errored` with what went wrong.
 */
import type { Knex } from 'knex';
import type { JobContext, ModelHooks, Row } from '../data/registry.js';
import { ApiError } from '../core/errors.js';
import { fetchSource, isAbsolutePath, isLocalUrl, type SourceFile } from '../core/source-files.js';
import { enqueueJob, startJob } from '../data/jobs.js';
import { model } from '../data/registry.js';
import { renderRows } from '../data/serialize.js';
import { putFile, removeFiles } from '../data/stored-files.js';
import { insertReturning } from '../data/insert.js';
import { whereAny } from '../data/any.js';
import { matchesNone } from './data_file.js';

const SYNC_JOB = 'sync';
/** What the change log keeps instead of a git password or an S3 secret key, as NetBox censors them. */
const CENSORED = '********';
const SECRET_PARAMETERS = ['password', 'aws_secret_access_key'];
const PARAMETERS: Record<string, string[]> = { git: ['branch', 'username', 'password'], 'amazon-s3': ['aws_access_key_id', 'aws_secret_access_key'] };
const GIT_URL = /^(https?|ssh|git|file):\/\/|^[\w.-]+@[\w.-]+:/i;
const CHUNK = 200;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parametersOf(row: Row): Record<string, unknown> {
  const value = typeof row.parameters === 'string' ? JSON.parse(row.parameters) : row.parameters;
  return isObject(value) ? value : {};
}

/** Makes the source's data files match `files`, in one transaction; returns the counts. */
async function storeFiles(db: Knex, source: Row, files: SourceFile[]): Promise<{ created: number; updated: number; deleted: number }> {
  const entry = model('DataFile');
  const table = entry.definition.table;
  const owner = entry.definition.contentType;
  const now = new Date().toISOString();
  return db.transaction(async (trx) => {
    const known = new Map<string, Row>((await trx(table).select('id', 'path', 'hash').where('source_id', source.id)).map((r: Row) => [String(r.path), r]));
    const byPath = new Map(files.map((f) => [f.path, f]));
    const gone = [...known.values()].filter((r) => !byPath.has(String(r.path))).map((r) => Number(r.id));
    for (let i = 0; i < gone.length; i += CHUNK) {
      const ids = gone.slice(i, i + CHUNK);
      await removeFiles(trx, owner, ids);
      await whereAny(trx, trx(table), 'id', ids).delete();
    }
    let updated = 0;
    for (const file of files) {
      const row = known.get(file.path);
      if (!row || row.hash === file.hash) continue;
      await trx(table).where('id', row.id).update({ size: file.size, hash: file.hash, last_updated: now });
      await putFile(trx, owner, Number(row.id), { contentType: 'application/octet-stream', data: file.data });
      updated++;
    }
    const fresh = files.filter((f) => !known.has(f.path));
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const part = fresh.slice(i, i + CHUNK);
      const inserted = await insertReturning(trx, table, part.map((f) => ({ source_id: source.id, path: f.path, size: f.size, hash: f.hash, last_updated: now, created: now })));
      for (let j = 0; j < part.length; j++) await putFile(trx, owner, Number(inserted[j].id), { contentType: 'application/octet-stream', data: part[j].data });
    }
    return { created: fresh.length, updated, deleted: gone.length };
  });
}

async function sync({ db, entry, row, job, timeoutMs }: JobContext): Promise<unknown> {
  if (!row) throw new Error('The data source no longer exists.');
  const table = entry.definition.table;
  const jobs = model('Job').definition.table;
  // One sync of a source at a time: a source left `syncing` by a job that no longer runs is taken over.
  const claimed = await db(table).where('id', row.id)
    .where((q) => q.whereNot('status', 'syncing').orWhereNotExists(
      db(jobs).select(db.raw('1')).where({ object_type: entry.definition.contentType, object_id: row.id, status: 'running' }).whereNot('id', job.id)))
    .update({ status: 'syncing' });
  if (!claimed) throw new Error('Cannot start the sync: another sync of this data source is running.');
  try {
    const files = await fetchSource({ type: String(row.type), url: String(row.source_url), parameters: parametersOf(row), ignoreRules: String(row.ignore_rules ?? ''), timeoutMs });
    const counts = await storeFiles(db, row, files);
    await db(table).where('id', row.id).update({ status: 'completed', last_synced: new Date().toISOString() });
    return { files: files.length, ...counts };
  } catch (error) {
    await db(table).where('id', row.id).update({ status: 'failed' });
    throw error;
  }
}

export const dataSource: ModelHooks = {
  snapshot(snap) {
    const parameters = typeof snap.parameters === 'string' ? JSON.parse(snap.parameters) : snap.parameters;
    if (!isObject(parameters)) return;
    const hidden = SECRET_PARAMETERS.filter((k) => parameters[k]);
    if (hidden.length) snap.parameters = { ...parameters, ...Object.fromEntries(hidden.map((k) => [k, CENSORED])) };
  },
  // NetBox's filter set has `tag`; a data source carries no tags, so no source has the tag
  filters: { no_tags: matchesNone },
  prepare(item) {
    // status is the sync's to set; a new source starts as `new`
    if (!item.existing) item.values.status = 'new';
    const merged = { ...(item.existing ?? {}), ...item.values };
    const url = typeof merged.source_url === 'string' ? merged.source_url : '';
    if (url && merged.type === 'local') {
      if (!isLocalUrl(url)) item.errors.add('source_url', 'URLs for local sources must start with file:// (or specify no scheme).');
      else if (!isAbsolutePath(url)) item.errors.add('source_url', 'Give the folder as an absolute path (/srv/templates) or a file:// URL.');
    }
    if (url && merged.type === 'git' && !GIT_URL.test(url)) item.errors.add('source_url', 'A git source needs a repository URL: https://, http://, ssh://, git://, file:// or user@host:path.');
    // an amazon-s3 URL is read when the source syncs (core/source-s3.ts): NetBox stores any URL
    // for it (the Ansible collection's own tasks write "path/to/bucket"), and so does NetLedger
    if (item.values.parameters === undefined || item.values.parameters === null) return;
    const parameters = JSON.parse(item.values.parameters);
    if (!isObject(parameters)) {
      item.errors.add('parameters', 'Give the parameters as an object.');
      return;
    }
    const allowed = PARAMETERS[String(merged.type)] ?? [];
    const unknown = Object.keys(parameters).filter((k) => !allowed.includes(k));
    if (unknown.length) item.errors.add('parameters', `Unknown parameter(s) for a ${merged.type} source: ${unknown.join(', ')}.${allowed.length ? ` Known: ${allowed.join(', ')}.` : ''}`);
    for (const [k, v] of Object.entries(parameters)) if (allowed.includes(k) && v !== null && typeof v !== 'string') item.errors.add('parameters', `${k} must be a string.`);
  },
  actions: {
    /** POST /sync/: queues the sync and answers the source, as it then stands. */
    async sync_data_source({ db, entry, row, user, baseUrl }) {
      if (!row.enabled) throw new ApiError(400, { detail: 'This data source is disabled; enable it to sync.' });
      const table = entry.definition.table;
      const job = await db.transaction(async (trx) => {
        const queued = await enqueueJob(trx, entry, Number(row.id), SYNC_JOB, user?.id ?? null);
        await trx(table).where('id', row.id).whereNot('status', 'syncing').update({ status: 'queued' });
        return queued;
      });
      const [body] = await renderRows(entry, await db(table).where('id', row.id), { db, baseUrl });
      startJob(db, Number(job.id));
      return { status: 200, body };
    },
  },
  jobs: { [SYNC_JOB]: sync },
};
