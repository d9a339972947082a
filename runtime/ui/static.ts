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
import type { Context } from 'koa';
import { encodeSync, sendEncoded, type Encoded } from '../http/precompressed.js';

const here = dirname(fileURLToPath(import.meta.url));
/** templates/ at the repository's top: two folders up from runtime/ui/, three from the compiled dist/runtime/ui/. */
export const TEMPLATE_DIR = [resolve(here, '../../templates'), resolve(here, '../../../templates')].find((dir) => existsSync(join(dir, 'ui'))) ?? resolve(here, '../../templates');
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** template name → [file name, path] */
const SOURCES: Record<string, [string, () => string]> = {
  tablerCss: ['tabler.css', () => join(packageDir('@tabler/core'), 'dist/css/tabler.min.css')],
  htmxJs: ['htmx.js', () => join(packageDir('htmx.org'), 'dist/htmx.min.js')],
  appJs: ['netledger.js', () => join(TEMPLATE_DIR, 'static/netledger.js')],
  appCss: ['netledger.css', () => join(TEMPLATE_DIR, 'static/netledger.css')],
};

const assets = new Map<string, Encoded>();
/** template name → versioned URL (`/static/<hash>/<file name>`) */
export const staticUrl: Record<string, string> = {};

function load(): void {
  for (const [key, [name, path]] of Object.entries(SOURCES)) {
    const plain = readFileSync(path());
    const hash = createHash('sha256').update(plain).digest('hex').slice(0, 12);
    assets.set(`${hash}/${name}`, encodeSync(plain, name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8', `"${hash}"`));
    staticUrl[key] = `/static/${hash}/${name}`;
  }
}
load();

/** Serves `/static/<hash>/<name>`; answers false for any other path. */
export function serveStatic(ctx: Context): boolean {
  if (!ctx.path.startsWith('/static/') || !['GET', 'HEAD'].includes(ctx.method)) return false;
  const asset = assets.get(ctx.path.slice('/static/'.length));
  if (!asset) return false;
  sendEncoded(ctx, asset, 'public, max-age=31536000, immutable');
  return true;
}
