/**
 * How much one request may ask of the service, from environment variables. Every limit is enforced
 * before any work is done for the request (runtime/http/guard.ts and body.ts), so a hostile client
 * costs little: an oversized body is refused while it arrives, not after it was buffered.
 */
export interface Limits {
  /** bytes of one request body (MAX_BODY_SIZE) */
  maxBodySize: number;
  /** bytes of the body of a request that carries no credentials (login, token provisioning) */
  anonymousBodySize: number;
  /** bytes all request bodies being read at once may hold together; beyond it, 413 with Retry-After */
  bodyMemory: number;
  /** nesting depth of a JSON body */
  maxJsonDepth: number;
  /** characters of the request target (path and query string); longer is a 414 */
  maxUrlLength: number;
  /** bytes of the request line and headers together (node:http maxHeaderSize); larger is a 431 */
  maxHeaderSize: number;
  /** values one query parameter may carry (`?tag=a&tag=b` is two) */
  maxParameterValues: number;
  /** values the whole query string may carry */
  maxQueryValues: number;
  /** milliseconds a client may take to send the request line and headers */
  headersTimeout: number;
  /** milliseconds a client may take to send the whole request, body included */
  requestTimeout: number;
  /** milliseconds an idle keep-alive connection stays open */
  keepAliveTimeout: number;
  /** milliseconds the rest of a refused body is read and discarded before the connection is closed */
  lingerTimeout: number;
  /** bytes of one uploaded image attachment (IMAGE_ATTACHMENT_MAX_SIZE) */
  imageAttachmentMaxSize: number;
}

export class LimitError extends Error {}

const UNITS: Record<string, number> = { '': 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2 };

/** A size in bytes: `1048576`, `512K`, `10M` (binary units). */
function size(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback;
  const m = /^(\d+)\s*([a-z]*)$/i.exec(raw);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  const value = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new LimitError(`${name}: expected a size in bytes from ${min} to ${max} (K and M suffixes allowed), got '${raw}'`);
  }
  return value;
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new LimitError(`${name}: expected a whole number from ${min} to ${max}, got '${raw}'`);
  return Number(raw);
}

/** Seconds (decimals allowed), returned in milliseconds. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback * 1000;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new LimitError(`${name}: expected seconds from ${min} to ${max}, got '${raw}'`);
  return Math.round(Number(raw) * 1000);
}

export const MiB = 1024 * 1024;

export function loadLimits(env: NodeJS.ProcessEnv): Limits {
  const maxBodySize = size(env, 'MAX_BODY_SIZE', 4 * MiB, 1024, 1024 * MiB);
  return {
    maxBodySize,
    anonymousBodySize: Math.min(64 * 1024, maxBodySize),
    bodyMemory: size(env, 'BODY_MEMORY_LIMIT', Math.max(16 * MiB, maxBodySize), maxBodySize, 64 * 1024 * MiB),
    maxJsonDepth: count(env, 'MAX_JSON_DEPTH', 64, 2, 10_000),
    maxUrlLength: count(env, 'MAX_URL_LENGTH', 8192, 256, 1_000_000),
    maxHeaderSize: size(env, 'MAX_HEADER_SIZE', 16 * 1024, 1024, 16 * MiB),
    maxParameterValues: count(env, 'MAX_PARAMETER_VALUES', 500, 1, 1_000_000),
    maxQueryValues: count(env, 'MAX_QUERY_VALUES', 2000, 1, 1_000_000),
    headersTimeout: seconds(env, 'HEADERS_TIMEOUT', 10, 1, 3600),
    requestTimeout: seconds(env, 'REQUEST_TIMEOUT', 60, 1, 86_400),
    keepAliveTimeout: seconds(env, 'KEEPALIVE_TIMEOUT', 5, 0.1, 3600),
    lingerTimeout: 1000,
    imageAttachmentMaxSize: size(env, 'IMAGE_ATTACHMENT_MAX_SIZE', 2 * MiB, 1024, 1024 * MiB),
  };
}
