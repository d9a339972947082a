/**
 * The one logger of every process (API, cluster primary, webhook worker, CLI start-up lines): pino.
 *
 * - Format: JSON lines when stdout is not a terminal (journald, containers, log shippers), readable
 *   text on a terminal (pino-pretty, as a synchronous stream so no line is lost at exit);
 *   LOG_FORMAT=json|text overrides.
 * - Secrets: lines carry chosen fields only (never headers, bodies or query strings), and the
 *   `redact` list below censors the usual secret-bearing keys should one ever be passed by mistake.
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/** Keys that may hold a secret, at the top level or one level down; their values become [redacted]. */
const SECRET_KEYS = ['password', 'token', 'key', 'secret', 'authorization', 'cookie', 'csrf', 'secret_key', 'api_key', 'aws_secret_access_key'];
const REDACT = [...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`), 'headers["set-cookie"]', '*.headers["set-cookie"]'];

/** LOG_FORMAT when valid, else text on a terminal and JSON otherwise. */
export function logFormat(env: NodeJS.ProcessEnv = process.env, tty = !!process.stdout.isTTY): LogFormat {
  const wanted = (env.LOG_FORMAT ?? '').toLowerCase();
  if ((LOG_FORMATS as string[]).includes(wanted)) return wanted as LogFormat;
  return tty ? 'text' : 'json';
}

/** A logger writing to `fd` (1: stdout; 2: stderr, for a fatal start-up line). */
export function createLogger(format: LogFormat = logFormat(), fd: 1 | 2 = 1, redact = true): Logger {
  const options = {
    level: process.env.LOG_LEVEL || 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(redact ? { redact: { paths: REDACT, censor: '[redacted]' } } : {}),
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (format === 'text') {
    const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
    return pino(options, pretty({ sync: true, destination: fd, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, colorize: !!tty }));
  }
  return pino(options, pino.destination({ dest: fd, sync: true }));
}

/** The process's logger. */
export const log: Logger = createLogger();

/**
 * The one line per request (http/logging.ts): its fields are fixed and hold no secret, so it skips
 * the redaction pass, which costs more than the line itself.
 */
export const requestLog: Logger = createLogger(logFormat(), 1, false);
