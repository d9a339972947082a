/**
 * Static files of the web interface, from their npm packages (Tabler's CSS, htmx) and templates/static/
 * (our small script and stylesheet). Nothing is fetched from another site. Each file is read and
 * compressed once; its URL carries a content hash, so it is cached for a year.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import type { Context } from 'koa';

const here = dirname(fileURLToPath(import.meta.url));
/** templates/ at the repository's top: two folders up from runtime/ui/, three from the compiled dist/runtime/ui/. */
export const TEMPLATE_DIR = [resolve(here, '../../templates'), resolve(here, '../../../templates')].find((dir) => existsSync(join(dir, 'ui'))) ?? resolve(here, '../../templates');
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

interface Asset {
  type: string;
  plain: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
}

/** template name → [file name, path] */
const SOURCES: Record<string, [string, () => string]> = {
  tablerCss: ['tabler.css', () => join(packageDir('@tabler/core'), 'dist/css/tabler.min.css')],
  htmxJs: ['htmx.js', () => join(packageDir('htmx.org'), 'dist/htmx.min.js')],
  appJs: ['netledger.js', () => join(TEMPLATE_DIR, 'static/netledger.js')],
  appCss: ['netledger.css', () => join(TEMPLATE_DIR, 'static/netledger.css')],
};

/**
 * Brotli's quality: 9, not the maximum 11. Every process compresses at start-up, and 11 took ~1 s of
 * CPU for Tabler's 635 KB stylesheet (55.8 KB) where 9 takes 40 ms (65.3 KB): npm start's workers and
 * every spawned test service paid that second, for 9.5 KB once per browser (the URL is cached a year).
 */
const BROTLI_QUALITY = 9;

const assets = new Map<string, Asset>();
/** template name → versioned URL (`/static/<hash>/<file name>`) */
export const staticUrl: Record<string, string> = {};

function load(): void {
  for (const [key, [name, path]] of Object.entries(SOURCES)) {
    const plain = readFileSync(path());
    const hash = createHash('sha256').update(plain).digest('hex').slice(0, 12);
    assets.set(`${hash}/${name}`, {
      type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      plain,
      gzip: gzipSync(plain, { level: 9 }),
      brotli: brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
      etag: `"${hash}"`,
    });
    staticUrl[key] = `/static/${hash}/${name}`;
  }
}
load();

/** Serves `/static/<hash>/<name>`; answers false for any other path. */
export function serveStatic(ctx: Context): boolean {
  if (!ctx.path.startsWith('/static/') || !['GET', 'HEAD'].includes(ctx.method)) return false;
  const asset = assets.get(ctx.path.slice('/static/'.length));
  if (!asset) return false;
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('ETag', asset.etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  if (ctx.get('If-None-Match') === asset.etag) {
    ctx.status = 304;
    return true;
  }
  // Brotli whenever the client takes it, as CDNs do: negotiation by the header's order would send
  // browsers gzip, since they list it first ("gzip, deflate, br, zstd").
  const encoding = ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity');
  if (encoding === 'br') ctx.set('Content-Encoding', 'br');
  else if (encoding === 'gzip') ctx.set('Content-Encoding', 'gzip');
  ctx.body = encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.plain;
  return true;
}
