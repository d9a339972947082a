/**
 * Which API version a request is answered in, worked out once, before anything else reads the path:
 * the base path (`/v4.6/api/...`, served as `/api/...` below this), then an `Accept` header naming
 * one (`application/json; version=4.6`), then API_VERSION. Every answer under /api carries
 * `API-Version`; a version that is not served is a 406 naming those that are. Below this, nothing
 * asks which version it serves: the views hand `renderBase(ctx)` to the renderer, which picks the
 * version's forms from the generated tables.
 */
import type { Context, Middleware } from 'koa';
import { apiVersions } from '../../generated/versions.js';
import { ApiError } from '../core/errors.js';
import { acceptedVersion } from '../core/versions.js';
import type { ApiVersion, RequestVersion } from '../core/types.js';

export type { RequestVersion } from '../core/types.js';

const served = new Map(apiVersions.versions.map((v) => [v.version, v]));
const PREFIX = /^\/v(\d+\.\d+)(\/api(?:\/.*)?)?$/;

function notAcceptable(asked: string): ApiError {
  return new ApiError(406, { detail: `Invalid version in "Accept" header or path: '${asked}'. Versions served: ${[...served.keys()].join(', ')}.` });
}

/** The version an API request is answered in (set by `apiVersioning`). */
export function requestVersion(ctx: Context): RequestVersion {
  return (ctx.state as { api: RequestVersion }).api;
}

/** What the renderer needs to know of the request: URL bases and the version's forms. */
export function renderBase(ctx: Context): { baseUrl: string; origin: string; version: string } {
  const api = requestVersion(ctx);
  return api ? { baseUrl: api.base, origin: api.origin, version: api.version } : { baseUrl: `${ctx.protocol}://${ctx.host}`, origin: `${ctx.protocol}://${ctx.host}`, version: apiVersions.default };
}

/**
 * Change records (and the webhook bodies made from them) hold representations in the schema's
 * default version, with URLs at the origin: may this request's answer reuse them?
 */
export function inChangeForms(ctx: Context): boolean {
  const base = renderBase(ctx);
  return base.baseUrl === base.origin && base.version === apiVersions.default;
}

/** `defaultVersion`: API_VERSION (config.ts has checked that it is served). */
export function apiVersioning(defaultVersion: string): Middleware {
  return async (ctx, next) => {
    const m = PREFIX.exec(ctx.path);
    if (!m && !ctx.path.startsWith('/api')) return next();
    const origin = `${ctx.protocol}://${ctx.host}`;
    let prefix = '';
    let chosen = defaultVersion;
    ctx.set('API-Version', defaultVersion);
    ctx.vary('Accept');
    if (m) {
      if (!served.has(m[1])) throw notAcceptable(m[1]);
      prefix = `/v${m[1]}`;
      chosen = m[1];
      ctx.set('API-Version', chosen);
      // /v4.6 and /v4.6/ lead to the API root
      if (!m[2]) { ctx.redirect(`${prefix}/api/`); return; }
      ctx.path = m[2];
    }
    const asked = acceptedVersion(ctx.get('Accept'));
    if (asked !== undefined) {
      if (!served.has(asked)) throw notAcceptable(asked);
      chosen = asked;
    }
    ctx.set('API-Version', chosen);
    (ctx.state as { api: RequestVersion }).api = { ...served.get(chosen)!, prefix, base: origin + prefix, origin };
    await next();
  };
}

export const servedVersions = apiVersions.versions;

const controls = new Map<string, ReadonlySet<string>>();

/** The control parameters a version's lists take beside the reserved ones: cursor pagination's `start`, field selection's `omit` (`fields` is reserved in every version). */
export function controlParams(api: ApiVersion | undefined): ReadonlySet<string> {
  const key = api?.version ?? '';
  let set = controls.get(key);
  if (!set) controls.set(key, (set = new Set([...(api?.cursorPagination ? ['start'] : []), ...(api?.fieldSelection ? ['omit'] : [])])));
  return set;
}
