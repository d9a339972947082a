/**
 * Request bodies: JSON, read after authentication and refused while they arrive. The bytes are
 * counted as they come, chunked or not, so an oversized body is a 413 as soon as it passes the limit
 * (at once when Content-Length announces it), and its nesting depth is checked on the raw bytes, so a
 * body nested too deep is refused before JSON.parse sees it. Requests without credentials get a small
 * allowance (enough for a login or token provisioning); all bodies being read at once share one
 * memory budget, so many concurrent uploads cannot add up to more than it. A body reserves its share
 * of that budget before authentication and before its first byte is read (its announced length, or
 * the whole limit when it is chunked): one that does not fit is refused at once, unread, instead of
 * after a database round trip and megabytes of reading.
 */
import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../core/errors.js';
import { readChunks, tooLarge } from '../core/small-body.js';
import { SESSION_COOKIE } from '../auth/sessions.js';
import type { Limits } from '../core/limits.js';
import type { State } from './state.js';
import { formBody, isMultipart } from './form-body.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** bytes of the shared budget reserved by the request bodies being read right now, in this process */
let reserved = 0;

/** What the guard needs to know about a body that was refused part-way. */
export interface BodyProgress {
  /** bytes of the body read before it was refused */
  bodyBytesRead?: number;
}

/** The shared budget cannot hold this body now (not the body's fault: the caller sets Retry-After). */
function busy(): ApiError {
  return new ApiError(413, { detail: 'Request body refused: the server is reading too many request bodies at once; retry shortly.' });
}

/** `application/json;` (as pynetbox sends it), charset variants and `+json` types are JSON. */
function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** Does the request announce a body (a length above 0, or chunked transfer)? */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The byte offset at which JSON's nesting first exceeds `max` (strings and escapes understood), or -1. */
function tooDeepAt(bytes: Uint8Array, max: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** ArrayBuffer.prototype.transfer (ES2024, Node 21+): a copy of the given size; the original is freed at once. */
function resize(buffer: ArrayBuffer, size: number): ArrayBuffer {
  return (buffer as ArrayBuffer & { transfer(size: number): ArrayBuffer }).transfer(size);
}

/** The bytes of a body, valid until `release` frees them. */
interface Body {
  bytes: Uint8Array;
  release(): void;
}

/**
 * Reads the body up to `limit` bytes within its reservation, which it gives back when the body is
 * released or refused. Past the limit it stops listening and rejects; what happens to the rest of
 * the body is the guard's business (runtime/http/guard.ts).
 */
function readLimited(req: IncomingMessage, limit: number, reservation: Reservation, limits: Limits, progress: (bytes: number) => void, json = true): Promise<Body> {
  const reserve = reservation.bytes;
  // One buffer, grown with ArrayBuffer.transfer, which frees the smaller one at once: buffers left
  // for the garbage collector (the chunks node:http hands over, earlier sizes) made 20 concurrent
  // uploads cost several times the bytes they held. It never outgrows the reservation.
  let store = new ArrayBuffer(0);
  let size = 0;
  let pending = 0;
  const release = () => {
    reservation.shrink();
    store = resize(store, 0);
  };
  const reading = readChunks(req, (chunk) => {
    pending = chunk.length;
    if (size + chunk.length > limit) return tooLarge(limit);
    // More than announced: node:http never hands that over, but the reservation must hold.
    if (size + chunk.length > reserve) return tooLarge(reserve);
    if (size + chunk.length > store.byteLength) {
      store = resize(store, Math.min(reserve, Math.max(64 * 1024, store.byteLength * 2, size + chunk.length)));
    }
    new Uint8Array(store, size, chunk.length).set(chunk);
    size += chunk.length;
    pending = 0;
    collect(chunk.length, false);
    return null;
  });
  return reading.then(
    () => {
      progress(size);
      const bytes = new Uint8Array(store, 0, size);
      // Scanned once whole, not as it arrives: an oversized body (refused at the limit) then costs
      // no scanning at all, which halves the work a flood of them makes.
      // (a form's files are bytes, not JSON: their brackets mean nothing)
      const deep = json ? tooDeepAt(bytes, limits.maxJsonDepth) : -1;
      if (deep >= 0) {
        release();
        throw errors.badJson(`nested deeper than ${limits.maxJsonDepth} levels (at byte ${deep}).`);
      }
      return { bytes, release };
    },
    (error: ApiError) => {
      progress(size + pending);
      release();
      collect(pending, true);
      throw error;
    },
  );
}

/** A share of the shared budget, held from before authentication until the body is read. */
interface Reservation {
  bytes: number;
  /** gives back all but `keep` bytes (all of them by default); idempotent */
  shrink(keep?: number): void;
}

/** Reserves `bytes` of the shared budget, or null when the budget cannot hold them now. */
function reserveBudget(bytes: number, limits: Limits): Reservation | null {
  if (reserved + bytes > limits.bodyMemory) return null;
  reserved += bytes;
  const reservation: Reservation = {
    bytes,
    shrink(keep = 0) {
      if (keep >= reservation.bytes) return;
      reserved -= reservation.bytes - keep;
      reservation.bytes = keep;
    },
  };
  return reservation;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * node:http hands over each piece of a body in a buffer of its own, which V8 frees only when its
 * external memory has grown by tens of MB. So the pieces read are counted, whoever reads them: once
 * `GARBAGE_BOUND` bytes have been read since the last collection, a young-generation collection
 * (cheap: about a millisecond, per 8 MiB read from the network) frees them. A refused body read for
 * more than a MiB also asks for one, at most every 50 ms, so a flood of oversized bodies leaves no
 * garbage behind however its refusals fall in time (a bound in time alone once let 13 refused bodies'
 * pieces, 52 MB, wait together for the collector on a loaded machine).
 */
const GARBAGE_BOUND = 8 * 1024 * 1024;
const collect = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: object) => void;
    let last = 0;
    let uncollected = 0;
    return (bytesRead: number, refused: boolean) => {
      uncollected += bytesRead;
      if (uncollected < GARBAGE_BOUND && !(refused && uncollected >= 1024 * 1024 && Date.now() - last >= 50)) return;
      last = Date.now();
      uncollected = 0;
      gc({ type: 'minor' });
    };
  } catch {
    return () => {};
  }
})();

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NOT_UNICODE = 'Enter valid Unicode text: a lone surrogate (\\ud800-\\udfff) is not a character.';

/** Why a text cannot be stored, or null. */
function unstorableText(text: string): string | null {
  if (text.includes('\0')) return 'Null characters are not allowed.';
  if (LONE_SURROGATE.test(text)) return NOT_UNICODE;
  return null;
}

/**
 * Why a parsed value cannot be stored faithfully: a number beyond the exactly representable integers
 * (or not finite), or a string with a NUL character or a lone UTF-16 surrogate (PostgreSQL text
 * cannot hold either: the second is no character at all). Null when fine.
 */
function unstorable(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'Enter a finite number.';
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) return `Ensure this value is between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`;
    } else if (typeof v === 'string') {
      const reason = unstorableText(v);
      if (reason) return reason;
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        const reason = unstorableText(key);
        if (reason) return reason;
        stack.push(item);
      }
    }
  }
  return null;
}

/** Field errors for values no column can hold, in NetBox's shape (a list for a bulk body). */
function checkStorable(body: unknown): void {
  const objectErrors = (item: unknown): Record<string, string[]> | null => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      const reason = unstorable(item);
      return reason ? { non_field_errors: [reason] } : null;
    }
    for (const [key, value] of Object.entries(item)) {
      const reason = unstorableText(key) ?? unstorable(value);
      if (reason) return { [key.replace(/\0/g, '\\u0000').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd')]: [reason] };
    }
    return null;
  };
  if (Array.isArray(body)) {
    const each = body.map(objectErrors);
    if (each.some(Boolean)) throw errors.validation(each.map((e) => e ?? {}));
    return;
  }
  const found = objectErrors(body);
  if (found) throw errors.validation(found);
}

interface Reserved {
  reservation?: Reservation;
}

/**
 * Before authentication (which may wait on the database): a request announcing a body reserves the
 * share of the shared budget it may need, its announced length or, chunked, the whole limit of a
 * request with credentials (a token or a session cookie; without, the anonymous allowance). A body
 * too large for that limit, or one the budget cannot hold now, is refused at once, none of it read:
 * the client hears it while it is still sending. The share is given back once the request is done,
 * or earlier by jsonBody.
 */
export function reserveBody(limits: Limits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!WRITES.has(ctx.method) || !announcesBody(ctx.req)) return next();
    const credentials = Boolean(ctx.get('Authorization') || ctx.cookies.get(SESSION_COOKIE));
    const limit = credentials ? limits.maxBodySize : limits.anonymousBodySize;
    const announced = ctx.req.headers['content-length'] === undefined ? null : Number(ctx.req.headers['content-length']);
    if (announced !== null && announced > limit) throw tooLarge(limit);
    const reservation = reserveBudget(announced ?? limit, limits);
    if (!reservation) {
      ctx.set('Retry-After', '1');
      throw busy();
    }
    (ctx.state as Reserved).reservation = reservation;
    try {
      await next();
    } finally {
      reservation.shrink();
    }
  };
}

/**
 * Reads a JSON body into `ctx.state.body` (`hasBody` says whether there was one); a multipart form
 * is read into the same shape (runtime/http/form-body.ts). Runs after
 * authentication: a request with no user may send only `anonymousBodySize` bytes (the reservation
 * made by reserveBody shrinks to it).
 */
export function jsonBody(limits: Limits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as State & BodyProgress & Reserved;
    state.hasBody = false;
    const reservation = state.reservation;
    if (reservation) {
      const limit = state.auth?.user ? limits.maxBodySize : limits.anonymousBodySize;
      if (reservation.bytes > limit) {
        // Credentials that named no user: an anonymous allowance, announced or chunked.
        if (ctx.req.headers['content-length'] !== undefined) throw tooLarge(limit);
        reservation.shrink(limit);
      }
      const multipart = isMultipart(ctx.get('Content-Type'));
      const raw = await readLimited(ctx.req, limit, reservation, limits, (n) => { state.bodyBytesRead = n; }, !multipart);
      if (multipart && raw.bytes.length) {
        try {
          state.body = await formBody(raw.bytes, ctx.get('Content-Type'));
        } finally {
          raw.release();
        }
        checkStorable(state.body);
        state.hasBody = true;
        return next();
      }
      let text: string;
      try {
        text = utf8.decode(raw.bytes);
      } catch {
        throw errors.badJson('the body is not valid UTF-8.');
      } finally {
        raw.release();
      }
      if (text.trim()) {
        if (!isJson(ctx.get('Content-Type'))) throw errors.unsupportedMediaType(ctx.get('Content-Type'));
        try {
          state.body = JSON.parse(text);
        } catch (error) {
          throw errors.badJson((error as Error).message);
        }
        checkStorable(state.body);
        state.hasBody = true;
      }
    }
    await next();
  };
}
