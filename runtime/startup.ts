/**
 * Start-up failures as one line that names the cause and the variable to change: the process then
 * exits non-zero without a stack trace (DEBUG=1 adds it). Anything not recognised here keeps its
 * stack, since it is a bug rather than a setting.
 */
import { ConfigError, type Config } from './core/config.js';
import { createLogger } from './core/log.js';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  hostname?: string;
  path?: string;
}

/** DATABASE_URL without its password. */
export function safeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

const PG_CONNECT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const PG_REFUSED: Record<string, string> = {
  '3D000': 'the database does not exist',
  '28P01': 'the password was refused',
  '28000': 'the role may not log in',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has no free connection slots',
};
const FS_DENIED = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT', 'ENOSPC']);

/** The one line for a start-up failure, or null when it is not a known one (a bug: keep the stack). */
export function startupProblem(error: unknown, config: Config | null): string | null {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  const e = error as SystemError;
  if (!e || typeof e !== 'object') return null;
  const code = e.code ?? '';
  const port = config?.port ?? 'PORT';
  const host = config?.host ?? 'HOST';
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use (EADDRINUSE): set PORT to a free port, or stop the process that holds it`;
    if (code === 'EACCES') return `no permission to listen on port ${port} (EACCES): set PORT to 1024 or higher`;
    if (code === 'EADDRNOTAVAIL') return `HOST ${host} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`;
  }
  if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && config && (e.hostname === config.host || e.syscall === 'getaddrinfo' && !config.databaseUrl)) {
    return `HOST ${config.host} does not resolve (${code}): set HOST to an address or name of this machine, such as 127.0.0.1 or 0.0.0.0`;
  }
  if (config?.databaseUrl) {
    const where = safeDatabaseUrl(config.databaseUrl);
    if (PG_CONNECT.has(code)) return `cannot connect to PostgreSQL at ${where} (${code}): check DATABASE_URL and that the server is running`;
    if (PG_REFUSED[code]) return `PostgreSQL at ${where} refused the connection: ${PG_REFUSED[code]} (${code}): check DATABASE_URL`;
  }
  if (config && !config.databaseUrl) {
    const inDataDir = typeof e.path === 'string' && e.path.startsWith(config.dataDir);
    if ((inDataDir && FS_DENIED.has(code)) || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
      return `DATA_DIR ${config.dataDir} is not a writable folder (${code}): set DATA_DIR to a folder this user may write`;
    }
  }
  return null;
}

/** Reports a start-up failure on stderr and exits: 2 for a setting, 1 for anything else. */
export function failStartup(error: unknown, config: Config | null): never {
  const line = startupProblem(error, config);
  const fatal = createLogger(config?.logFormat, 2);
  if (line) {
    fatal.fatal(`cannot start: ${line}`);
    if (process.env.DEBUG === '1') process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
    process.exit(2);
  }
  fatal.fatal({ err: error }, `cannot start: ${(error as Error)?.message ?? error}`);
  process.exit(1);
}
