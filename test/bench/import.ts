/**
 * `npm run bench:import [-- copies]`: `import-netbox` of NetBox's 3.7 demo database multiplied
 * `copies` times (100 by default: about 614,000 rows; netbox-multiply.sql), into SQLite and into
 * PostgreSQL, each as `npm run cli` runs it (the built dist/, brought up to date first). Prints rows per second and the import process's peak
 * RSS (from /usr/bin/time). Needs PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432) for the source.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencePath } from '../reference.js';
import { runProcess } from '../run-cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const copies = Number(process.argv[2] ?? 100);
const demo = referencePath('netbox-demo-data');
if (!demo) throw new Error('shared/reference/netbox-demo-data is missing (NETBOX_REFERENCE names its parent)');

const urlOf = (database: string) => { const u = new URL(PG_URL); u.pathname = `/${database}`; return u.toString(); };

async function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  const result = await runProcess(command, args, env, 60 * 60_000);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

const psql = (database: string, ...args: string[]) => run('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', urlOf(database), ...args]);

const source = `netledger_bench_import_${process.pid}`;
const target = `netledger_bench_import_target_${process.pid}`;
await psql('postgres', '-c', `do $$ begin if not exists (select from pg_roles where rolname = 'netbox') then create role netbox; end if; end $$`, '-c', `create database ${source}`, '-c', `create database ${target}`);
try {
  const loaded = performance.now();
  await psql(source, '-f', join(demo, 'netbox-demo-v3.7.sql'));
  await psql(source, '-c', `set bench.copies = ${copies}`, '-f', join(root, 'test/bench/netbox-multiply.sql'));
  console.log(`source: NetBox 3.7 demo data x${copies}, built in ${((performance.now() - loaded) / 1000).toFixed(0)} s`);
  await run(join(root, 'node_modules/.bin/node'), [join(root, 'scripts/build.mjs'), '--if-stale']);
  for (const engine of ['sqlite', 'postgres']) {
    const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-import-'));
    try {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, ...(engine === 'postgres' ? { DATABASE_URL: urlOf(target) } : {}) };
      const started = performance.now();
      const { stdout, stderr } = await run('/usr/bin/time', ['-f', 'peak-rss-kb %M', join(root, 'node_modules/.bin/node'), '--import', 'tsx', 'runtime/cli.ts', 'import-netbox', urlOf(source)], env);
      const seconds = (performance.now() - started) / 1000;
      const total = stdout.split('\n').find((l) => l.startsWith('total'))?.trim().split(/\s+/) ?? [];
      const imported = Number(total[2]);
      const rss = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
      console.log(`${engine.padEnd(8)}  ${imported} rows in ${seconds.toFixed(1)} s: ${Math.round(imported / seconds)} rows/s, peak RSS ${rss.toFixed(0)} MB`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await psql('postgres', '-c', `drop database if exists ${source} with (force)`, '-c', `drop database if exists ${target} with (force)`);
}
