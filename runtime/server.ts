/**
 * Starting the service: open the database, apply pending migrations, create the first admin on an
 * empty database, start the webhook worker (RUN_WORKER=1), and listen. Also used by the tests, which
 * start it on a free port.
 */
import { loadPeppers } from './auth/peppers.js';
import { createServer, type Server } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { loadConfig, type Config } from './core/config.js';
import { openPrepared, prepareDatabase } from './data/prepare.js';
import { openDatabase } from './data/db.js';
import { loadSearchIndexes } from './data/search-index.js';
import { keepStatistics, type StatisticsKeeper } from './data/statistics.js';
import { createApp } from './http/app.js';
import { uiRoutes } from './ui/index.js';
import { onClientError, serverOptions } from './http/guard.js';
import { model } from './data/registry.js';
import { JOB_POLL_MS, JobRunner } from './data/jobs.js';
import { createObjects } from './data/write.js';
import './compose.js';
import cluster from 'node:cluster';
import { startWorker, type WebhookWorker } from './webhooks/worker.js';
import { queued } from './webhooks/channel.js';
import { trackPool, untrackPool } from './core/metrics.js';
import { WAKE_WORKER } from './cluster.js';


let seenGeneration = -1;

/**
 * After a commit in a cluster worker without the webhook worker: if it queued deliveries, the
 * primary passes the word on, so they go out at once rather than at the next poll (SQLite has no
 * NOTIFY; on PostgreSQL this only comes early).
 */
function wakePeerWorker(): void {
  if (!cluster.isWorker || !process.send || queued.generation === seenGeneration) return;
  seenGeneration = queued.generation;
  process.send({ type: WAKE_WORKER });
}

export interface Running {
  url: string;
  db: Knex;
  config: Config;
  server: Server;
  /** the first admin's credentials, when this start created them */
  admin: { username: string; password: string; token: string } | null;
  /** the webhook worker running in this process (RUN_WORKER=1), else null */
  worker: WebhookWorker | null;
  /** the planner-statistics rounds (stopped by close; stop them first to drop the database under it) */
  statistics: StatisticsKeeper;
  close(): Promise<void>;
}

/** Creates the first superuser and a token when no user exists yet. */
export async function ensureAdmin(db: Knex, config: Config): Promise<Running['admin']> {
  const users = model('User');
  const anyUser = async () => Number((await db(users.definition.table).count('* as n').first())?.n ?? 0) > 0;
  if (await anyUser()) return null;
  const password = config.adminPassword ?? randomBytes(12).toString('base64url');
  const token = config.adminToken ?? randomBytes(20).toString('hex');
  try {
    await db.transaction(async (trx) => {
      const now = new Date().toISOString();
      const ctx = { db: trx, user: null, now, requestId: randomUUID(), baseUrl: '' };
      const user = await createObjects(users, [{ username: config.adminUsername, password, is_superuser: true, is_staff: true, date_joined: now }], false, ctx);
      await createObjects(model('Token'), [{ user: user.ids[0], key: token, description: 'Created on first start' }], false, ctx);
    });
  } catch (error) {
    // Another service on the same database, started at the same moment, made the first user meanwhile.
    if (await anyUser()) return null;
    throw error;
  }
  return { username: config.adminUsername, password, token };
}

/**
 * `prepared`: the database is already migrated and set up (a cluster worker: slot 0 did it
 * once for all), so only the connection is opened.
 */
export async function start(config: Config = loadConfig(), options: { prepared?: boolean } = {}): Promise<Running> {
  const db = options.prepared ? openPrepared(config) : (await prepareDatabase(config)).db;
  await loadSearchIndexes(db);
  const statistics = await keepStatistics(db, config.statisticsInterval, config.statisticsRefreshRows);
  const worker = config.runWorker ? await startWorker(config, db) : null;
  // jobs this process queues start here; with the worker, it also takes those other processes left
  const jobs = new JobRunner(db, (config.dataSourceSyncTimeout ?? 120) * 1000).start(config.runWorker ? JOB_POLL_MS : null);
  trackPool('api', db);
  const readDb = config.databaseReadUrl ? openDatabase(config, config.databaseReadUrl) : undefined;
  if (readDb) trackPool('api-read', readDb);
  const peppers = await loadPeppers(db, config.apiTokenPeppers);
  const app = createApp({ db, readDb, config, peppers, afterCommit: worker ? () => worker.wake() : wakePeerWorker }, uiRoutes);
  let listening: Server | null = null;
  /** Everything start opened, closed again (by close, or when the start fails half-way). */
  const release = async () => {
    await statistics.stop();
    const open = listening;
    if (open) await new Promise<void>((resolve) => { open.close(() => resolve()); open.closeAllConnections(); });
    await worker?.stop();
    await jobs.stop();
    untrackPool('api');
    untrackPool('api-read');
    await readDb?.destroy();
    await db.destroy();
  };
  let server: Server;
  let admin: Running['admin'] = null;
  try {
    server = listening = await new Promise<Server>((resolve, reject) => {
      const s = createServer(serverOptions(config.limits), app.callback());
      s.on('clientError', onClientError(config.limits));
      s.listen(config.port, config.host, () => { s.off('error', reject); resolve(s); });
      s.once('error', reject);
    });
    // Only once listening: a start that fails (port in use) must not use up the first start.
    admin = options.prepared ? null : await ensureAdmin(db, config);
  } catch (error) {
    await release();
    throw error;
  }
  if (worker && cluster.isWorker) {
    // Another process of the cluster queued deliveries (see wakePeerWorker).
    process.on('message', (message: { type?: string }) => { if (message?.type === WAKE_WORKER) worker.wake(true); });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    db,
    config,
    server,
    admin,
    worker,
    statistics,
    close: release,
  };
}
