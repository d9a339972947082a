/**
 * Test harness: starts the real service on a free port, on SQLite (a fresh data folder) or on
 * PostgreSQL (a fresh schema in TEST_DATABASE_URL), and talks to it over HTTP.
 * The engine comes from TEST_DATABASE (sqlite | postgres), set by test/run.mjs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { loadConfig } from '../runtime/core/config.js';
import { start, type Running } from '../runtime/server.js';
import { modelList, models } from '../runtime/data/registry.js';
import { apiVersions } from '../generated/versions.js';
import { entriesInVersion } from '../generator/versions.js';
import type { ModelEntry } from '../runtime/core/types.js';
import { checkResponse } from './openapi-check.js';

export const ADMIN_TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
export const engine = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface TestApp {
  url: string;
  running: Running;
  /** JSON request with the admin token unless `token` says otherwise (null: none) */
  api<T = any>(method: string, path: string, body?: unknown, options?: { token?: string | null; headers?: Record<string, string>; raw?: string; redirect?: 'manual' | 'follow' }): Promise<Reply<T>>;
  /** POST, expecting 201; returns the body */
  post<T = any>(path: string, body: unknown): Promise<T>;
  /** GET, expecting 200; returns the body */
  get<T = any>(path: string): Promise<T>;
  /** PATCH, expecting 200; returns the body */
  patch<T = any>(path: string, body: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL schema name for a test: `<prefix>_<run tag><random hex>`. test/run.mjs gives each run
 * a tag (TEST_RUN_TAG) and fails the run when a schema with its tag is still there at the end.
 */
export function testSchemaName(prefix: string): string {
  return `${prefix}_${process.env.TEST_RUN_TAG ?? ''}${randomBytes(5).toString('hex')}`;
}

/** A new, empty database for a test service: a DATA_DIR and, on PostgreSQL, a schema of its own; `env` starts a service on it. */
export function testDatabase(): { env: Record<string, string>; dataDir: string; schema: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-test-'));
  const schema = testSchemaName('t');
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    ADMIN_PASSWORD: 'admin-password-for-tests',
    LOG_REQUESTS: '0',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : {}),
  };
  return { env, dataDir, schema };
}

/**
 * Starts the service on a new database, or on another service's when `env` names its DATA_DIR or
 * DATABASE_SCHEMA. `stop()` removes the database the service used when it is its own, or when
 * `takesOverDatabase` says this service now answers for it (its first owner was closed, not stopped).
 */
export async function startApp(env: Record<string, string> = {}, options: { takesOverDatabase?: boolean } = {}): Promise<TestApp> {
  const { env: base, dataDir } = testDatabase();
  const running = await start(loadConfig({ ...base, ...env }));
  const removesDatabase = options.takesOverDatabase ?? !(env.DATA_DIR || env.DATABASE_SCHEMA);
  const url = running.url;
  const testApp: TestApp = {
    url,
    running,
    async api(method, path, body, options = {}) {
      const token = options.token === undefined ? ADMIN_TOKEN : options.token;
      const headers: Record<string, string> = { Accept: 'application/json', ...(options.headers ?? {}) };
      if (token) headers.Authorization = `Token ${token}`;
      let payload: string | undefined = options.raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        headers['Content-Type'] ??= 'application/json';
      }
      const send = () => fetch(url + path, { method, headers, body: payload, redirect: options.redirect ?? 'manual' });
      let res: Response;
      try {
        res = await send();
      } catch (error) {
        // A keep-alive connection the server closed while the test held the event loop (parsing a
        // large document, say) fails on reuse; a read is safe to send again on a fresh connection.
        const code = (error as { cause?: { code?: string } }).cause?.code;
        if (!['GET', 'HEAD', 'OPTIONS'].includes(method) || !['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(code ?? '')) throw error;
        res = await send();
      }
      const text = await res.text();
      let parsed: unknown = text;
      try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
      // Every JSON answer must match the OpenAPI document (test/openapi-check.ts).
      if (parsed !== text) checkResponse(method, path, res.status, res.headers.get('content-type'), parsed, res.headers.get('api-version'));
      return { status: res.status, body: parsed as any, headers: res.headers, text };
    },
    async post(path, body) {
      const reply = await testApp.api('POST', path, body);
      expectStatus(reply, 201, `POST ${path} ${JSON.stringify(body).slice(0, 300)}:`);
      return reply.body;
    },
    async get(path) {
      const reply = await testApp.api('GET', path);
      expectStatus(reply, 200, `GET ${path}:`);
      return reply.body;
    },
    async patch(path, body) {
      const reply = await testApp.api('PATCH', path, body);
      expectStatus(reply, 200, `PATCH ${path} ${JSON.stringify(body).slice(0, 300)}:`);
      return reply.body;
    },
    async stop() {
      // The worker polls the schema and the statistics round reads it: stop both before the schema goes.
      await running.worker?.stop();
      await running.statistics.stop();
      const { databaseSchema, dataDir: usedDir } = running.config;
      if (removesDatabase && databaseSchema) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [databaseSchema]);
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (removesDatabase) rmSync(usedDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

/** Fails the test with the reply's body when the status is not the expected one. */
export function expectStatus(reply: Reply, status: number, what = ''): void {
  if (reply.status !== status) throw new Error(`${what} expected HTTP ${status}, got ${reply.status}: ${reply.text.slice(0, 800)}`);
}

/**
 * Sends a write that must fail validation on `field` (in the single body, or in the failing element
 * of a bulk one) and returns the first message for that field.
 */
export async function expectFieldError(app: TestApp, method: string, path: string, body: unknown, field: string): Promise<string> {
  const reply = await app.api(method, path, body);
  expectStatus(reply, 400, `${method} ${path} ${JSON.stringify(body).slice(0, 300)}:`);
  const errors = Array.isArray(reply.body) ? reply.body.find((e: Record<string, unknown>) => Object.keys(e).length) : reply.body;
  if (!errors?.[field]) throw new Error(`expected an error on ${field}, got ${JSON.stringify(reply.body)}`);
  return errors[field][0] as string;
}

/** The version a test reaches a model in: the default one when it serves the model, else the first that does (a 4.x-only model's). */
export function versionOf(entry: ModelEntry): string {
  return entry.routes.versions.includes(apiVersions.default) ? apiVersions.default : entry.routes.versions[0];
}

const servedViews = new Map<string, Map<string, ModelEntry>>();

/** The model as the version a test reaches it in serves it: that version's fields, forms and path (`routes.list`, without the version prefix). */
export function asServed(entry: ModelEntry): ModelEntry {
  const version = versionOf(entry);
  let views = servedViews.get(version);
  if (!views) servedViews.set(version, (views = new Map(entriesInVersion(modelList, version).map((e) => [e.definition.name, e]))));
  return views.get(entry.definition.name)!;
}

/** The model's list path, under `/v<version>` when the default version does not serve it. */
export function listPath(entry: ModelEntry): string {
  const version = versionOf(entry);
  return `${version === apiVersions.default ? '' : `/v${version}`}${asServed(entry).routes.list}`;
}

export function detailPath(entry: ModelEntry, id: number): string {
  return `${listPath(entry)}${id}/`;
}

export { models };

/**
 * The calls of node-pg's Client.query (one per round trip to PostgreSQL) while `fn` runs, and how many
 * of them were handed to a connection still running or queueing another query (node-pg deprecates
 * that: a warning on the service's output, an error from pg 9). Nothing on SQLite.
 */
export async function watchPgQueries<T>(fn: () => Promise<T>): Promise<{ calls: number; busy: number; events: string[]; result: T }> {
  const { Client } = createRequire(import.meta.url)('pg') as { Client: { prototype: { query(...args: unknown[]): unknown } } };
  const query = Client.prototype.query;
  const running = new WeakMap<object, number>();
  let calls = 0;
  let busy = 0;
  /** `send <statement>` and `done <statement>` in the order they happened (statements as sent, whitespace collapsed) */
  const events: string[] = [];
  Client.prototype.query = function (this: object, ...args: unknown[]) {
    calls++;
    if ((running.get(this) ?? 0) > 0) busy++;
    running.set(this, (running.get(this) ?? 0) + 1);
    const first = args[0] as string | { text?: string };
    const text = (typeof first === 'string' ? first : first?.text ?? '').replace(/\s+/g, ' ');
    events.push(`send ${text}`);
    const done = () => { running.set(this, (running.get(this) ?? 1) - 1); events.push(`done ${text}`); };
    const callback = args[args.length - 1];
    if (typeof callback === 'function') {
      args[args.length - 1] = (...answer: unknown[]) => { done(); return callback(...answer); };
      return query.apply(this, args);
    }
    const result = query.apply(this, args) as { then?: (ok: () => void, failed: () => void) => unknown } | undefined;
    if (typeof result?.then === 'function') result.then(done, done);
    else done();
    return result;
  };
  try {
    const result = await fn();
    return { calls, busy, events, result };
  } finally {
    Client.prototype.query = query;
  }
}
