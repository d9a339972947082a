/**
 * Command line: `start` (the service), `migrate`, `help`. `npm start` runs `start`.
 */
import { ConfigError, loadConfig } from './config.js';
import { migrate, openDatabase } from './db.js';
import { start } from './server.js';

const USAGE = `usage: npm run cli -- <command>
  start     apply pending migrations and serve the API (npm start)
  migrate   apply pending migrations and exit
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
        const config = loadConfig();
        const db = openDatabase(config);
        const applied = await migrate(db, config.databaseSchema);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
        await db.destroy();
        return 0;
      }
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
