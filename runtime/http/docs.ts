/**
 * The API's own description, readable without a token:
 * - `/api/schema/`: the generated OpenAPI document of the request's API version (`/v4.6/api/schema/`), JSON (`?format=json`, the default) or YAML
 *   (`?format=yaml`, or an Accept header asking for YAML); its paths start with the base the request
 *   came under (`/v4.6/api/dcim/devices/`), as NetBox's do under its BASE_PATH, where clients (the
 *   Ansible inventory) look an endpoint's filters up;
 * - `/api/docs/?format=openapi`: the same document (pynetbox's openapi(), Ansible before NetBox 3.5);
 * - `/api/docs/`: interactive documentation (Swagger UI), served from the swagger-ui-dist package
 *   under `/api/docs/static/`, so nothing is loaded from another site.
 * The document and those files are compressed once per process (gzip and Brotli, on first use) and
 * sent in the encoding the client accepts, with an ETag.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { errors } from '../core/errors.js';
import { requestVersion } from './versions.js';
import { encode, sendEncoded, type Encoded } from './precompressed.js';

/** The document is the same for every client and changes only with a new release: a client revalidates after five minutes. */
const DOCUMENT_CACHE = 'public, max-age=300';

/**
 * Each API version's document (generated/versions.ts names its file) under each base path as JSON and
 * as YAML, encoded on first use (the pending promise is shared: concurrent first requests compress once).
 */
const documents = new Map<string, Promise<Encoded>>();
function documentOf(ctx: Context, yaml: boolean): Promise<Encoded> {
  const { document: file, prefix } = requestVersion(ctx);
  const key = `${file}:${prefix}:${yaml ? 'yaml' : 'json'}`;
  let doc = documents.get(key);
  if (!doc) {
    const json = JSON.parse(readFileSync(new URL(`../../generated/${file}`, import.meta.url), 'utf8'));
    if (prefix) json.paths = Object.fromEntries(Object.entries(json.paths ?? {}).map(([path, item]) => [prefix + path, item]));
    doc = yaml
      ? encode(Buffer.from(stringify(json, { aliasDuplicateObjects: false })), 'application/vnd.oai.openapi; charset=utf-8')
      : encode(Buffer.from(JSON.stringify(json)), 'application/json; charset=utf-8');
    documents.set(key, doc);
    doc.catch(() => documents.delete(key));
  }
  return doc;
}

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist'));
const STATIC: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};
const staticCache = new Map<string, Promise<Encoded>>();

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>NetLedger REST API</title>
  <link rel="stylesheet" href="static/swagger-ui.css">
  <link rel="stylesheet" href="static/index.css">
  <link rel="icon" type="image/png" href="static/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="static/swagger-ui-bundle.js"></script>
  <script src="static/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: new URL('../schema/?format=json', window.location.href).toString(),
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      // Logged in through /login/, the session cookie authenticates; writes need its CSRF token.
      requestInterceptor: (req) => {
        const csrf = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='));
        if (csrf) req.headers['X-CSRFToken'] = decodeURIComponent(csrf.slice(10));
        return req;
      },
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
    });
  </script>
</body>
</html>
`;

function wantsYaml(ctx: Context): boolean {
  const format = ctx.query.format;
  if (format === 'yaml') return true;
  if (format === 'json' || format === 'openapi') return false;
  const accept = ctx.get('Accept').toLowerCase();
  return /yaml|application\/vnd\.oai\.openapi(?!\+json)/.test(accept) && !accept.includes('application/json');
}

async function serveDocument(ctx: Context): Promise<void> {
  // JSON or YAML may follow from the Accept header
  ctx.vary('Accept');
  sendEncoded(ctx, await documentOf(ctx, wantsYaml(ctx)), DOCUMENT_CACHE);
}

export function mountDocs(router: Router): void {
  router.get('/api/schema/', serveDocument);
  router.get('/api/docs/', async (ctx) => {
    if (ctx.query.format !== undefined) {
      await serveDocument(ctx);
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  // strict: a file name never gets the trailing slash every other path has.
  router.register('/api/docs/static/:file', ['GET', 'HEAD'], async (ctx) => {
    const file = ctx.params.file;
    const type = STATIC[file];
    if (!type) throw errors.notFound();
    let body = staticCache.get(file);
    if (!body) staticCache.set(file, (body = encode(readFileSync(join(swaggerDir, file)), type)));
    sendEncoded(ctx, await body, 'public, max-age=86400');
  }, { strict: true });
}
