/**
 * Slows down password guessing on the endpoints that take a password (token provisioning and the
 * login form): at most THROTTLE_LIMIT failed attempts per source address in any THROTTLE_WINDOW_MS,
 * after which the answer is 429 with Retry-After, before the password is even checked.
 *
 * The attempts live in the database (`users_loginattempt`), so every process that shares it counts
 * the same failures. An attempt is recorded *before* the count is taken and removed again when it
 * succeeds (or is refused as throttled), so concurrent guesses, in one process or several, see each
 * other and cannot slip past the limit together. A success is never counted, and does not clear the
 * failures already counted (else one valid account would let a source reset its own counter).
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { ApiError } from '../core/errors.js';
import { parseNetwork, networkText } from '../core/ipnet.js';

export const THROTTLE_LIMIT = 5;
export const THROTTLE_WINDOW_MS = 60_000;
const TABLE = 'users_loginattempt';

/** 429 `{"detail": "Request was throttled. …"}`; `retryAfter` seconds go into the Retry-After header. */
export class Throttled extends ApiError {
  constructor(public readonly retryAfter: number) {
    super(429, { detail: `Request was throttled. Expected available in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.` });
  }
}

/**
 * What failures are counted by: an IPv4 address as it is, an IPv6 address by its /64 (a single host
 * usually holds a whole /64, so counting by address would be easy to dodge).
 */
export function throttleSource(ip: string): string {
  const plain = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
  const n = parseNetwork(plain);
  if (!n) return plain.slice(0, 64) || 'unknown';
  if (n.family === 4) return fromParsed(n);
  const net = parseNetwork(`${fromParsed(n)}/64`);
  return net ? networkText(net) : plain.slice(0, 64);
}

function fromParsed(n: NonNullable<ReturnType<typeof parseNetwork>>): string {
  return n.text.replace(/\/\d+$/, '');
}

export interface Attempt {
  /** the password was right: this attempt does not count */
  succeeded(): Promise<void>;
}

/**
 * Records an attempt from `source`, or throws Throttled when the source already has THROTTLE_LIMIT
 * failures (or attempts under way) inside the window. Call `succeeded()` when the password was right;
 * a failed attempt needs nothing more, it stays counted until it leaves the window.
 */
export async function beginAttempt(db: Knex, source: string, now = Date.now()): Promise<Attempt> {
  const cutoff = now - THROTTLE_WINDOW_MS;
  // Old rows are of no further use; removing them here keeps the table as small as the window.
  await db(TABLE).where('at', '<=', cutoff).delete();
  const inserted = await db(TABLE).insert({ source, at: now }).returning('id');
  const id = Number(typeof inserted[0] === 'object' ? (inserted[0] as { id: number }).id : inserted[0]);
  const remove = async () => { await db(TABLE).where('id', id).delete(); };
  const recent = await db(TABLE).where('source', source).where('at', '>', cutoff).whereNot('id', id)
    .select('at').orderBy('at', 'desc').limit(THROTTLE_LIMIT);
  if (recent.length >= THROTTLE_LIMIT) {
    await remove();
    // Available again once the oldest of the last THROTTLE_LIMIT attempts leaves the window.
    const oldest = Math.min(...recent.map((r: { at: number | string }) => Number(r.at)));
    throw new Throttled(Math.max(1, Math.ceil((oldest + THROTTLE_WINDOW_MS - now) / 1000)));
  }
  return { succeeded: remove };
}

/** beginAttempt for a request: counts by the client address, and answers 429 with Retry-After. */
export async function beginRequestAttempt(ctx: Context, db: Knex): Promise<Attempt> {
  try {
    return await beginAttempt(db, throttleSource(ctx.ip));
  } catch (error) {
    if (error instanceof Throttled) ctx.set('Retry-After', String(error.retryAfter));
    throw error;
  }
}
