/**
 * Configuration from environment variables. An invalid value stops the start with a message that
 * names the variable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LimitError, loadLimits, type Limits } from './limits.js';
import { availableParallelism } from 'node:os';
import { parseNetwork } from './ipnet.js';
import { LOG_FORMATS, logFormat, type LogFormat } from './log.js';
import { apiVersions } from '../../generated/versions.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema to use instead of public (tests run each suite in its own) */
  databaseSchema: string | null;
  /** PostgreSQL connections each process's pool may open (DATABASE_POOL_MAX) */
  databasePoolMax?: number;
  /** a streaming standby of DATABASE_URL that serves reads (DATABASE_READ_URL; read-routing.ts) */
  databaseReadUrl?: string | null;
  /** reads batched as EXECUTEs of prepared statements (off behind a transaction-mode pooler; pg-batch.ts) */
  databasePreparedStatements?: boolean;
  secretKey: string;
  paginateCount: number;
  /** null: no maximum (limit=0 returns everything) */
  maxPageSize: number | null;
  /** a list's `count` is exact up to this many rows, an estimate above (PostgreSQL only); 0: always exact */
  countExactLimit: number;
  /** seconds between rounds of planner-statistics upkeep (statistics.ts); null: the engine's default */
  statisticsInterval: number | null;
  /** rows a table must owe (changed since its last analysis) before it is analysed after writes (fresh-statistics.ts) */
  statisticsRefreshRows: number;
  /** content types readable without a token; '*' for all */
  exemptViewPermissions: string[];
  adminUsername: string;
  adminPassword: string | null;
  adminToken: string | null;
  logRequests: boolean;
  production: boolean;
  /** only superusers may create API tokens (provisioning included) */
  restrictTokenCreation: boolean;
  /** trust X-Forwarded-For / X-Forwarded-Proto from a reverse proxy */
  trustProxy: boolean;
  /** seconds a webhook request may take before it counts as failed */
  webhookTimeout: number;
  /** seconds a data source's fetch (git clone) may take before its sync job errors (DATA_SOURCE_SYNC_TIMEOUT) */
  dataSourceSyncTimeout?: number;
  /** seconds before each automatic retry of a failed delivery; empty: none */
  webhookRetrySchedule: number[];
  /** webhook requests in flight at once, per worker */
  webhookConcurrency: number;
  /** days succeeded deliveries are kept; 0 keeps them */
  webhookPruneAfter: number;
  /** `start` also runs a webhook worker */
  runWorker: boolean;
  /** an unknown query parameter on a list is a 400 (0: ignored, as NetBox does) */
  strictFilters: boolean;
  /** NetBox's ENFORCE_GLOBAL_UNIQUE: no duplicate prefix or IP address in the global table (no VRF) */
  enforceGlobalUnique: boolean;
  /** sizes, counts and timeouts of requests (core/limits.ts) */
  limits: Limits;
  /** json or text (LOG_FORMAT; by default text on a terminal) */
  logFormat: LogFormat;
  /** networks that may read /metrics without a token */
  metricsAllowed: string[];
  /** processes `npm start` serves with (1: no cluster) */
  webConcurrency: number;
  /** API_VERSION: the API version /api/ serves (schema/versions.yaml's default unless set) */
  apiVersion: string;
  /** API_TOKEN_PEPPERS: the keys v2 tokens' digests are made with, by id (empty: one generated and kept in the database) */
  apiTokenPeppers: Map<number, string>;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name}: expected a whole number from ${min} to ${max}, got '${raw}'`);
  return Number(raw);
}

/** A non-negative number of seconds or days; decimals allowed. */
function amount(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name}: expected a number from ${min} to ${max}, got '${raw}'`);
  return Number(raw);
}

function retrySchedule(env: NodeJS.ProcessEnv): number[] {
  const raw = (env.WEBHOOK_RETRY_SCHEDULE ?? '').trim();
  if (raw === '') return [5, 60, 600, 3600, 18000];
  if (raw === '0') return [];
  const delays = raw.split(',').map((s) => s.trim());
  if (delays.length > 50 || delays.some((d) => !/^\d+(\.\d+)?$/.test(d) || Number(d) <= 0)) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE: expected comma-separated seconds such as 5,60,600 (or 0 for no retries), got '${raw}'`);
  }
  return delays.map(Number);
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name}: expected 1 or 0, got '${env[name]}'`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError(`DATABASE_URL: expected postgres://user@host:port/database, got '${databaseUrl}'`);
  const maxRaw = (env.MAX_PAGE_SIZE ?? '').toLowerCase();
  const maxPageSize = maxRaw === 'none' || maxRaw === '0' ? null : integer(env, 'MAX_PAGE_SIZE', 1000, 1, 1_000_000);
  const exempt = (env.EXEMPT_VIEW_PERMISSIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of exempt) {
    if (item !== '*' && !/^[a-z]+\.[a-z0-9]+$/.test(item)) throw new ConfigError(`EXEMPT_VIEW_PERMISSIONS: '${item}' is neither '*' nor app.model`);
  }
  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken && !/^[0-9a-f]{40}$/i.test(adminToken)) throw new ConfigError('ADMIN_TOKEN: expected 40 hexadecimal characters');
  const host = env.HOST || '127.0.0.1';
  const schema = env.DATABASE_SCHEMA || null;
  if (env.LOG_FORMAT && !(LOG_FORMATS as string[]).includes(env.LOG_FORMAT.toLowerCase())) throw new ConfigError(`LOG_FORMAT: expected json or text, got '${env.LOG_FORMAT}'`);
  const metricsAllowed = (env.METRICS_ALLOWED ?? '127.0.0.0/8,::1').split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of metricsAllowed) {
    if (!parseNetwork(item)) throw new ConfigError(`METRICS_ALLOWED: '${item}' is not an IP address or network`);
  }
  const databaseReadUrl = env.DATABASE_READ_URL || null;
  if (databaseReadUrl && !databaseUrl) throw new ConfigError('DATABASE_READ_URL: reads go to a standby of DATABASE_URL, which is not set (SQLite has no standby)');
  if (databaseReadUrl && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) throw new ConfigError(`DATABASE_READ_URL: expected postgres://user@host:port/database, got '${databaseReadUrl}'`);
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new ConfigError(`DATABASE_SCHEMA: '${schema}' is not a plain identifier`);
  return {
    port: integer(env, 'PORT', 8000, 0, 65535),
    host,
    dataDir,
    databaseUrl,
    databaseSchema: schema,
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databaseReadUrl,
    databasePreparedStatements: flag(env, 'DATABASE_PREPARED_STATEMENTS', true),
    secretKey: secretKey(env, dataDir, production),
    paginateCount: integer(env, 'PAGINATE_COUNT', 50, 1, 1_000_000),
    maxPageSize,
    countExactLimit: integer(env, 'COUNT_EXACT_LIMIT', 100_000, 0, Number.MAX_SAFE_INTEGER),
    statisticsInterval: env.STATISTICS_INTERVAL ? amount(env, 'STATISTICS_INTERVAL', 0, 0.1, 86_400) : null,
    statisticsRefreshRows: amount(env, 'STATISTICS_REFRESH_ROWS', 500, 1, 1e12),
    exemptViewPermissions: exempt,
    adminUsername: env.ADMIN_USERNAME || 'admin',
    adminPassword: env.ADMIN_PASSWORD || null,
    adminToken: adminToken?.toLowerCase() ?? null,
    logRequests: env.LOG_REQUESTS !== '0',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    restrictTokenCreation: env.RESTRICT_TOKEN_CREATION === '1' || env.RESTRICT_TOKEN_CREATION === 'true',
    webhookTimeout: amount(env, 'WEBHOOK_TIMEOUT', 15, 0.1, 3600),
    dataSourceSyncTimeout: amount(env, 'DATA_SOURCE_SYNC_TIMEOUT', 120, 1, 86400),
    webhookRetrySchedule: retrySchedule(env),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 1000),
    webhookPruneAfter: amount(env, 'WEBHOOK_PRUNE_AFTER', 7, 0, 36500),
    runWorker: flag(env, 'RUN_WORKER', true),
    strictFilters: flag(env, 'STRICT_FILTERS', true),
    enforceGlobalUnique: flag(env, 'ENFORCE_GLOBAL_UNIQUE', true),
    limits: limits(env),
    logFormat: logFormat(env),
    metricsAllowed,
    webConcurrency: integer(env, 'WEB_CONCURRENCY', availableParallelism(), 1, 256),
    apiVersion: apiVersion(env),
    apiTokenPeppers: tokenPeppers(env),
    production,
  };
}

/** API_VERSION: one of the versions served, e.g. 3.7 or 4.6. */
function apiVersion(env: NodeJS.ProcessEnv): string {
  const served = apiVersions.versions.map((v) => v.version);
  const value = env.API_VERSION || apiVersions.default;
  if (!served.includes(value)) throw new ConfigError(`API_VERSION: expected one of ${served.join(', ')}, got '${value}'`);
  return value;
}

/** The shortest pepper accepted, as NetBox asks. */
const PEPPER_MIN_LENGTH = 50;

/**
 * API_TOKEN_PEPPERS: `1:<pepper>,2:<pepper>` or the JSON object `{"1": "<pepper>", ...}`. The
 * highest id makes new v2 tokens' digests; every listed one still verifies the tokens made with it.
 */
function tokenPeppers(env: NodeJS.ProcessEnv): Map<number, string> {
  const raw = env.API_TOKEN_PEPPERS?.trim();
  const peppers = new Map<number, string>();
  if (!raw) return peppers;
  let pairs: [string, unknown][];
  if (raw.startsWith('{')) {
    let parsed: unknown;
    try { parsed = JSON.parse(raw); } catch { throw new ConfigError('API_TOKEN_PEPPERS: not a valid JSON object'); }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError('API_TOKEN_PEPPERS: expected a JSON object of id to pepper');
    pairs = Object.entries(parsed);
  } else {
    pairs = raw.split(',').map((part) => {
      const at = part.indexOf(':');
      if (at < 0) throw new ConfigError(`API_TOKEN_PEPPERS: expected <id>:<pepper> pairs separated by commas, got '${part.slice(0, 12)}...'`);
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    });
  }
  for (const [id, pepper] of pairs) {
    if (!/^\d{1,5}$/.test(id) || Number(id) > 32767) throw new ConfigError(`API_TOKEN_PEPPERS: a pepper id must be a whole number from 0 to 32767, got '${id}'`);
    if (typeof pepper !== 'string' || pepper.length < PEPPER_MIN_LENGTH) throw new ConfigError(`API_TOKEN_PEPPERS: pepper ${id} must be a string of at least ${PEPPER_MIN_LENGTH} characters`);
    if (peppers.has(Number(id))) throw new ConfigError(`API_TOKEN_PEPPERS: pepper id ${id} is given twice`);
    peppers.set(Number(id), pepper);
  }
  return peppers;
}

function limits(env: NodeJS.ProcessEnv): Limits {
  try {
    return loadLimits(env);
  } catch (error) {
    throw error instanceof LimitError ? new ConfigError(error.message) : error;
  }
}

/** SECRET_KEY is required in production; the embedded default keeps a generated one in DATA_DIR. */
function secretKey(env: NodeJS.ProcessEnv, dataDir: string, production: boolean): string {
  if (env.SECRET_KEY) {
    if (env.SECRET_KEY.length < 32) throw new ConfigError('SECRET_KEY: must be at least 32 characters');
    return env.SECRET_KEY;
  }
  if (production) throw new ConfigError('SECRET_KEY: required when NODE_ENV=production');
  const file = join(dataDir, 'secret_key');
  try {
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(48).toString('base64url');
    writeFileSync(file, key + '\n', { mode: 0o600 });
    return key;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`DATA_DIR: ${dataDir} is not a writable folder (${code}); set DATA_DIR to a folder this user may write, or set SECRET_KEY`);
  }
}
