/**
 * Command line: `start` (the service), `migrate`, `worker`, `webhook-receiver`, the account commands
 * of runtime/auth/accounts.ts (`createsuperuser`, `create-token`, `changepassword`) and `help`.
 * `npm start` runs `start`; `npm run worker` runs `worker`.
 *
 * The application is imported only by the commands that need it, so the cluster primary (which
 * only supervises) starts in a fraction of the time and its workers load in parallel.
 */
import './core/node-version.js';
import cluster from 'node:cluster';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from './core/config.js';
import { log } from './core/log.js';
import { failStartup, startupProblem } from './startup.js';
import { ASK_DATABASE_READY, DATABASE_READY, SERVING, STARTUP_FAILED, superviseCluster } from './cluster.js';

type Admin = { username: string; password: string; token: string };

async function usage(): Promise<string> {
  const { accountCommands } = await import('./auth/accounts.js');
  return `usage: npm run cli -- <command>
  start     apply pending migrations and serve the API (npm start)
  migrate   apply pending migrations and exit
  worker    deliver webhooks and run jobs, no API (npm run worker)
  webhook-receiver [--port 9000] [--host 127.0.0.1]
            print the headers and body of every request received, answer 200
  import-netbox <postgres-url> [--replace] [--dry-run]
            import a NetBox 3.7-4.2 database whole (ids, users and passwords, tags, cables)
${Object.values(accountCommands).map((c) => `  ${c.usage}`).join('\n')}
  help      this text`;
}

/** The application's modules, hooks registered (runtime/compose.ts). */
async function application() {
  await import('./compose.js');
  const [prepare, server] = await Promise.all([import('./data/prepare.js'), import('./server.js')]);
  return { prepareDatabase: prepare.prepareDatabase, ensureAdmin: server.ensureAdmin, start: server.start };
}

async function main(argv: string[]): Promise<number> {
  const [command = 'help'] = argv;
  try {
    switch (command) {
      case 'start':
        await serve();
        return -1;
      case 'migrate': {
        const { prepareDatabase } = await application();
        const { db, applied } = await prepareDatabase(loadConfig());
        log.info(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
        await db.destroy();
        return 0;
      }
      case 'worker':
        await runWorker();
        return -1;
      case 'webhook-receiver': {
        const { receiverArgs, startReceiver } = await import('./webhooks/receiver.js');
        let options;
        try { options = receiverArgs(argv.slice(1)); } catch (error) { console.error((error as Error).message); return 2; }
        const server = await startReceiver(options);
        const address = server.address();
        console.log(`Listening for webhooks on http://${options.host}:${typeof address === 'object' && address ? address.port : options.port}/ (Ctrl-C to stop)`);
        return -1;
      }
      case 'createsuperuser': case 'create-token': case 'changepassword': {
        await import('./compose.js');
        const { runAccountCommand } = await import('./auth/accounts.js');
        return await runAccountCommand(command, argv.slice(1));
      }
      case 'import-netbox': {
        await import('./compose.js');
        const { runImportNetbox } = await import('./import-netbox.js');
        return await runImportNetbox(argv.slice(1));
      }
      case 'help': case '--help': case '-h':
        console.log(await usage());
        return 0;
      default:
        console.error(`unknown command '${command}'\n${await usage()}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      return 2;
    }
    // A database that cannot be reached, a DATA_DIR that cannot be written: one line, as for start.
    failStartup(error, safeConfig());
  }
}

function safeConfig(): Config | null {
  try { return loadConfig(); } catch { return null; }
}

function engine(config: Config): string {
  return config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;
}

/**
 * First start: the generated admin credentials. On a terminal they are shown; otherwise (a service
 * manager, a container) they go to a file only the service's user can read, never into the log.
 */
function announceAdmin(admin: Admin, config: Config): void {
  const text = `username:  ${admin.username}\npassword:  ${admin.password}\nAPI token: ${admin.token}\n`;
  if (config.logFormat === 'text' && process.stdout.isTTY) {
    process.stdout.write(`First start: created superuser '${admin.username}'.\n${text.replace(/^/gm, '  ')}These are shown once; keep them somewhere safe.\n`);
    return;
  }
  const file = join(config.dataDir, 'first-start-credentials.txt');
  try {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    log.warn({ file }, `First start: created superuser '${admin.username}'; its password and API token are in ${file} (readable by this user only): keep them elsewhere and delete the file`);
  } catch (error) {
    log.warn(`First start: created superuser '${admin.username}', but could not write its credentials to ${file} (${(error as NodeJS.ErrnoException).code}); set a new password with npm run cli -- changepassword ${admin.username}`);
  }
}

/** Stops on SIGTERM/SIGINT: `close` runs once, then the process exits (0, or 1 when closing failed). */
function onSignals(what: string, close: () => Promise<void>): void {
  const stop = async (signal: string) => {
    log.info(`${signal}: ${what}`);
    try {
      await close();
    } catch (error) {
      log.error({ err: error }, `${what} failed`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/**
 * Once serving, a rejection nothing handled is logged with its stack and the process serves on:
 * Node's default would end it, and every request it holds with it. Requests handle their own
 * failures (a 500 with the request id); this is the net under a path that would not.
 */
function serveOnStrayRejections(): void {
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection; the process serves on'));
}

/** `npm start`: one process serving, or (WEB_CONCURRENCY > 1) a supervised cluster of them. */
async function serve(): Promise<void> {
  let config: Config | null = null;
  try {
    config = loadConfig();
    if (cluster.isWorker) return await serveAsClusterWorker(config);
    if (config.webConcurrency > 1) {
      const url = await superviseCluster(config);
      log.info({ processes: config.webConcurrency }, `NetLedger listening on ${url}/api/ (${engine(config)}, ${config.webConcurrency} processes)`);
      return;
    }
    const { start } = await application();
    const running = await start(config);
    serveOnStrayRejections();
    log.info(`NetLedger listening on ${running.url}/api/ (${engine(config)})`);
    if (running.admin) announceAdmin(running.admin, config);
    onSignals('shutting down', () => running.close());
  } catch (error) {
    failStartup(error, config);
  }
}

/** The primary's word that slot 0 has migrated the database (sent at once to later forks). */
function databaseReady(): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: { type?: string }) => {
      if (message?.type !== DATABASE_READY) return;
      process.off('message', listener);
      resolve();
    };
    process.on('message', listener);
    process.send!({ type: ASK_DATABASE_READY });
  });
}

/**
 * One API process of the cluster. Slot 0 prepares the database (migrations, the first admin) while
 * the others load; they open it once the primary passes on that it is ready. A start-up failure goes
 * to the primary, which reports it once for the whole service.
 */
async function serveAsClusterWorker(config: Config): Promise<void> {
  const ready = process.env.NETLEDGER_SLOT === '0' ? null : databaseReady();
  try {
    const { prepareDatabase, ensureAdmin, start } = await application();
    if (!ready) {
      const { db } = await prepareDatabase(config);
      await db.destroy();
      process.send!({ type: DATABASE_READY });
    } else {
      await ready;
    }
    const running = await start(config, { prepared: true });
    serveOnStrayRejections();
    onSignals('shutting down', () => running.close());
    // Only once serving: a start that fails (port in use) must not use up the first start.
    const admin = ready ? null : await ensureAdmin(running.db, config);
    if (admin) announceAdmin(admin, config);
    process.send!({ type: SERVING, url: running.url });
  } catch (error) {
    const line = startupProblem(error, config);
    if (!line) failStartup(error, config);
    process.send!({ type: STARTUP_FAILED, line, code: 2 }, () => process.exit(2));
  }
}

/** `npm run worker`: webhook delivery and jobs (data source syncs), no API. */
async function runWorker(): Promise<void> {
  let config: Config | null = null;
  try {
    config = loadConfig();
    const { prepareDatabase } = await application();
    const { startWorker } = await import('./webhooks/worker.js');
    const { db } = await prepareDatabase(config);
    const worker = await startWorker(config, db);
    const { JOB_POLL_MS, JobRunner } = await import('./data/jobs.js');
    const jobs = new JobRunner(db, (config.dataSourceSyncTimeout ?? 120) * 1000).start(JOB_POLL_MS);
    serveOnStrayRejections();
    log.info(`NetLedger webhook worker ${worker.owner} running (${engine(config)}, concurrency ${config.webhookConcurrency})`);
    onSignals('stopping the worker', async () => {
      await worker.stop();
      await jobs.stop();
      await db.destroy();
    });
  } catch (error) {
    failStartup(error, config);
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
