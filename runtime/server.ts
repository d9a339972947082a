/**
 * Starting the service: open the database, apply pending migrations, create the first admin on an
 * empty database, start the webhook worker (RUN_WORKER=1), and listen. Also used by the tests, which
 * start it on a free port.
 */
import type { Server } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { loadConfig, type Config } from './core/config.js';
import { prepareDatabase } from './data/prepare.js';
import { createApp } from './http/app.js';
import { uiRoutes } from './ui/index.js';
import { model } from './data/registry.js';
import { createObjects } from './data/write.js';
import './compose.js';
import { startWorker, type WebhookWorker } from './webhooks/worker.js';

export interface Running {
  url: string;
  db: Knex;
  config: Config;
  server: Server;
  /** the first admin's credentials, when this start created them */
  admin: { username: string; password: string; token: string } | null;
  /** the webhook worker running in this process (RUN_WORKER=1), else null */
  worker: WebhookWorker | null;
  close(): Promise<void>;
}

/** Creates the first superuser and a token when no user exists yet. */
export async function ensureAdmin(db: Knex, config: Config): Promise<Running['admin']> {
  const users = model('User');
  const existing = await db(users.definition.table).count('* as n').first();
  if (Number(existing?.n ?? 0) > 0) return null;
  const password = config.adminPassword ?? randomBytes(12).toString('base64url');
  const token = config.adminToken ?? randomBytes(20).toString('hex');
  await db.transaction(async (trx) => {
    const now = new Date().toISOString();
    const ctx = { db: trx, user: null, now, requestId: randomUUID(), baseUrl: '' };
    const user = await createObjects(users, [{ username: config.adminUsername, password, is_superuser: true, is_staff: true, date_joined: now }], false, ctx);
    await createObjects(model('Token'), [{ user: user.ids[0], key: token, description: 'Created on first start' }], false, ctx);
  });
  return { username: config.adminUsername, password, token };
}

export async function start(config: Config = loadConfig()): Promise<Running> {
  const { db } = await prepareDatabase(config);
  const admin = await ensureAdmin(db, config);
  const worker = config.runWorker ? await startWorker(config, db) : null;
  const app = createApp({ db, config, afterCommit: worker ? () => worker.wake() : undefined }, uiRoutes);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
  });
  server.keepAliveTimeout = 5000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    db,
    config,
    server,
    admin,
    worker,
    async close() {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      await worker?.stop();
      await db.destroy();
    },
  };
}
