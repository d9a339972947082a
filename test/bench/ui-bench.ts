/**
 * What the web-interface benches share: a service on a fresh database (SQLite, or PostgreSQL when
 * DATABASE_URL is set, in a schema of its own), the API client, and a logged-in session that times a
 * page by its Server-Timing header and prints its p50 and p95, with two figures a loaded machine
 * moves less: the SQL statements one request issues, and the process's CPU time per request (the
 * service and this client share the process; PostgreSQL's own work is not in it). SLOW_STATEMENTS=1
 * also prints the five slowest statements of that one request (SLOW_STATEMENTS=<n>: the n slowest), with
 * their time to the answer; only those that go through knex (DATABASE_PREPARED_STATEMENTS=0 sends more so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { countQueries } from '../../runtime/data/db.js';
import { apiCall, type Call } from './api-call.js';
import type { Knex } from 'knex';

/** Each statement's time from its start to its answer, until stop(), which returns the five slowest. */
function timeStatements(db: Knex): { stop(): { ms: number; sql: string }[] } {
  const started = new Map<string, { at: number; sql: string }>();
  const done: { ms: number; sql: string }[] = [];
  const onQuery = (q: { __knexQueryUid: string; sql: string }) => { started.set(q.__knexQueryUid, { at: performance.now(), sql: q.sql }); };
  const onResponse = (_: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (s) done.push({ ms: performance.now() - s.at, sql: s.sql });
  };
  db.on('query', onQuery);
  db.on('query-response', onResponse);
  return {
    stop() {
      db.removeListener('query', onQuery);
      db.removeListener('query-response', onResponse);
      return done.sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.SLOW_STATEMENTS) > 1 ? Number(process.env.SLOW_STATEMENTS) : 5);
    },
  };
}

const TOKEN = 'c'.repeat(40);
const PASSWORD = 'bench-password-ui';

export interface UiBench {
  call: Call;
  engine: 'SQLite' | 'PostgreSQL';
  /** logs in; then each `report` times a page `runs` times after `warm` requests and prints the figures */
  login(): Promise<{ report(what: string, path: string, runs: number, warm: number): Promise<void> }>;
  close(): Promise<void>;
}

export async function uiBench(name: string): Promise<UiBench> {
  const dataDir = mkdtempSync(join(tmpdir(), `netledger-bench-${name}-`));
  const postgres = !!process.env.DATABASE_URL;
  const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, ADMIN_PASSWORD: PASSWORD, LOG_REQUESTS: '0', RUN_WORKER: '0', ...(postgres ? { DATABASE_SCHEMA: `bench_${randomBytes(4).toString('hex')}` } : {}) }));
  const engine = postgres ? 'PostgreSQL' : 'SQLite';
  return {
    call: apiCall(running.url, TOKEN),
    engine,
    async login() {
      const login = await fetch(`${running.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `username=admin&password=${PASSWORD}&next=/`, redirect: 'manual' });
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const time = async (path: string) => {
        const res = await fetch(`${running.url}${path}`, { headers: { Cookie: cookie } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        return Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
      };
      const at = (list: number[], q: number) => [...list].sort((x, y) => x - y)[Math.min(list.length - 1, Math.floor(q * list.length))].toFixed(1);
      return {
        async report(what, path, runs, warm) {
          for (let i = 0; i < warm; i++) await time(path);
          const statements = countQueries(running.db);
          const slowest = process.env.SLOW_STATEMENTS ? timeStatements(running.db) : null;
          await time(path);
          statements.stop();
          if (slowest) for (const s of slowest.stop()) console.log(`  ${s.ms.toFixed(1)} ms  ${s.sql.slice(0, 300)}`);
          const times: number[] = [];
          const cpu = process.cpuUsage();
          for (let i = 0; i < runs; i++) times.push(await time(path));
          const used = process.cpuUsage(cpu);
          const cpuMs = ((used.user + used.system) / 1000 / runs).toFixed(1);
          console.log(`${what} (${engine}, ${runs} requests): server-side (Server-Timing) p50 ${at(times, 0.5)} ms, p95 ${at(times, 0.95)} ms; ${statements.count} SQL statements, ${cpuMs} ms CPU per request`);
        },
      };
    },
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
