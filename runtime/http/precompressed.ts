/**
 * Bodies compressed once and sent many times: the OpenAPI document (~4 MB of JSON, ~50 KB as
 * Brotli), Swagger UI's files and the web interface's static files. Each is kept plain, gzipped and
 * Brotli-compressed with an ETag of its content; a request gets the encoding it accepts, or a 304
 * when it already holds that ETag.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, gzip, gzipSync, constants as zlib, type BrotliOptions } from 'node:zlib';
import type { Context } from 'koa';

export interface Encoded {
  type: string;
  plain: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
}

/**
 * Brotli's quality: 9, not the maximum 11. Tabler's 635 KB stylesheet took ~1 s of CPU at 11 and
 * 40 ms at 9 (55.8 KB against 65.3 KB); the 4 MB OpenAPI document 6.8 s at 11 and 0.7 s at 9
 * (48 KB against 51 KB).
 */
const BROTLI_QUALITY = 9;
const GZIP_LEVEL = 9;

const brotliOptions = (plain: Buffer): BrotliOptions => ({
  params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length },
});
const etagOf = (plain: Buffer) => `"${createHash('sha256').update(plain).digest('hex').slice(0, 16)}"`;

/** Compressed at start-up (small files). */
export function encodeSync(plain: Buffer, type: string, etag = etagOf(plain)): Encoded {
  return { type, plain, gzip: gzipSync(plain, { level: GZIP_LEVEL }), brotli: brotliCompressSync(plain, brotliOptions(plain)), etag };
}

/** Compressed on libuv's thread pool (large bodies, on first use): the event loop goes on serving. */
export async function encode(plain: Buffer, type: string): Promise<Encoded> {
  const [gz, br] = await Promise.all([promisify(gzip)(plain, { level: GZIP_LEVEL }), promisify(brotliCompress)(plain, brotliOptions(plain))]);
  return { type, plain, gzip: gz, brotli: br, etag: etagOf(plain) };
}

/** Does If-None-Match name this ETag (or `*`)? A weak validator matches too, as for GET it should. */
function matches(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === etag || t === '*');
}

/** Answers with `body` in the encoding the request accepts (HEAD: the same headers, no body). */
export function sendEncoded(ctx: Context, body: Encoded, cacheControl: string): void {
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', body.etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = body.type;
  if (matches(ctx.get('If-None-Match'), body.etag)) {
    ctx.status = 304;
    return;
  }
  // Brotli whenever the client takes it, as CDNs do: negotiation by the header's order would send
  // browsers gzip, since they list it first ("gzip, deflate, br, zstd").
  const encoding = ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity');
  if (encoding === 'br') ctx.set('Content-Encoding', 'br');
  else if (encoding === 'gzip') ctx.set('Content-Encoding', 'gzip');
  ctx.body = encoding === 'br' ? body.brotli : encoding === 'gzip' ? body.gzip : body.plain;
}
