/**
 * Command line: `start` (the service), `migrate`, `worker`, `webhook-receiver`, the account commands
 * of runtime/accounts.ts (`createsuperuser`, `create-token`, `changepassword`) and `help`. `npm start`
 * runs `start`; `npm run worker` runs `worker`.
 */
import './compose.js';
import { ConfigError, loadConfig } from './core/config.js';
import { prepareDatabase } from './data/prepare.js';
import { start } from './server.js';
import { startWorker } from './webhooks/worker.js';
import { receiverArgs, startReceiver } from './webhooks/receiver.js';
import { accountCommands, runAccountCommand } from './auth/accounts.js';

const USAGE = `usage: npm run cli -- <command>
  start     apply pending migrations and serve the API (npm start)
  migrate   apply pending migrations and exit
  worker    deliver webhooks only, no API (npm run worker)
  webhook-receiver [--port 9000] [--host 127.0.0.1]
            print the headers and body of every request received, answer 200
${Object.values(accountCommands).map((c) => `  ${c.usage}`).join('\n')}
  help      this text`;

async function main(argv: string[]): Promise<number> {
  const [command = 'help'] = argv;
  try {
    switch (command) {
      case 'start': {
        const running = await start(loadConfig());
        console.log(`NetLedger listening on ${running.url}/api/ (${running.config.databaseUrl ? 'PostgreSQL' : `SQLite in ${running.config.dataDir}`})`);
        if (running.admin) {
          console.log(`First start: created superuser '${running.admin.username}'.`);
          console.log(`  password:  ${running.admin.password}`);
          console.log(`  API token: ${running.admin.token}`);
          console.log('These are shown once; keep them somewhere safe.');
        }
        const stop = async (signal: string) => {
          console.log(`${signal}: shutting down`);
          await running.close();
          process.exit(0);
        };
        process.once('SIGTERM', () => void stop('SIGTERM'));
        process.once('SIGINT', () => void stop('SIGINT'));
        return -1;
      }
      case 'migrate': {
        const { db, applied } = await prepareDatabase(loadConfig());
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
        await db.destroy();
        return 0;
      }
      case 'worker': {
        const config = loadConfig();
        const { db } = await prepareDatabase(config);
        const worker = await startWorker(config, db);
        console.log(`NetLedger webhook worker ${worker.owner} running (${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}, concurrency ${config.webhookConcurrency})`);
        const stop = async (signal: string) => {
          console.log(`${signal}: stopping the worker`);
          await worker.stop();
          await db.destroy();
          process.exit(0);
        };
        process.once('SIGTERM', () => void stop('SIGTERM'));
        process.once('SIGINT', () => void stop('SIGINT'));
        return -1;
      }
      case 'webhook-receiver': {
        let options;
        try { options = receiverArgs(argv.slice(1)); } catch (error) { console.error((error as Error).message); return 2; }
        const server = await startReceiver(options);
        const address = server.address();
        console.log(`Listening for webhooks on http://${options.host}:${typeof address === 'object' && address ? address.port : options.port}/ (Ctrl-C to stop)`);
        return -1;
      }
      case 'createsuperuser': case 'create-token': case 'changepassword':
        return await runAccountCommand(command, argv.slice(1));
      case 'help': case '--help': case '-h':
        console.log(USAGE);
        return 0;
      default:
        console.error(`unknown command '${command}'\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
