/**
 * The Koa application: request id and API headers, the request log line, errors as JSON, the
 * trailing-slash redirect, JSON bodies, authentication, then one route table per model.
 */
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { ApiError, errors, fromDatabaseError } from '../core/errors.js';
import { isStorableId } from '../core/ids.js';
import { modelList } from '../data/registry.js';
import { isPostgres } from '../data/db.js';
import { identified } from './identify.js';
import { views, type Services, type State } from './views.js';
import { tokenProvision } from '../auth/provision.js';
import { sessionRoutes } from '../auth/sessions.js';
import { userConfig } from './user-config.js';
import { dashboard } from './dashboard.js';
import { mountDocs } from './docs.js';
import { status } from './status.js';
import { actionView } from './actions.js';
import { hostFallback, requestGuard } from './guard.js';
import { jsonBody, reserveBody } from './body.js';
import { log } from '../core/log.js';
import { observeRequests } from './logging.js';
import { healthProbes } from './health.js';
import { metricsEndpoint } from './metrics.js';
import { jsonAsBuffer } from './json-response.js';
import { apiVersioning, renderBase, requestVersion, servedVersions } from './versions.js';
import { pathsIn } from '../core/versions.js';
import { idempotency } from './idempotency.js';
import { readRouting } from './read-routing.js';

export const VERSION = '0.1.0';
const APPS = ['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'status', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless'];

/**
 * `/api/dcim/devices/` for `/api/dcim/devices/1/`: the model routes live in one router per such
 * prefix (every model route starts with `/api/<app>/<endpoint>/`) and API version, so a request is
 * matched against a handful of routes, not against the ~1,700 routes of every model (koa-router tests
 * each in turn), and only against those its version serves (a model's `since:`, `until:`, `moved:`).
 */
function routePrefix(path: string): string {
  const app = path.indexOf('/', 5);
  const end = app < 0 ? -1 : path.indexOf('/', app + 1);
  return end < 0 ? path : path.slice(0, end + 1);
}

/** Ids in paths are integers that fit an id column; anything else is simply not found. */
function checkId(id: string, _ctx: Context, next: Next) {
  if (!/^\d{1,10}$/.test(id) || !isStorableId(Number(id))) throw errors.notFound();
  return next();
}

/** A URL of this API under the base the request came under (`http://host/v4.6/api/dcim/`). */
function absolute(ctx: Context, path: string): string {
  return `${renderBase(ctx).baseUrl}${path}`;
}

/** Middleware run in order, as Koa runs its own: the chain after authentication, which may run twice (identify.ts). */
function chain(middleware: Koa.Middleware[]): (ctx: Koa.Context) => Promise<void> {
  const run = (ctx: Koa.Context, i: number): Promise<void> =>
    i < middleware.length ? Promise.resolve(middleware[i](ctx, () => run(ctx, i + 1))) : Promise.resolve();
  return (ctx) => run(ctx, 0);
}

/** Errors become JSON; unexpected ones are logged with the request id and shown as a bare 500. */
async function handleErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    const known = error instanceof ApiError ? error : fromDatabaseError(error);
    if (known) {
      ctx.status = known.status;
      ctx.body = known.body;
      ctx.set(known.headers);
      return;
    }
    const requestId = (ctx.state as State).requestId;
    log.error({ reqId: requestId, method: ctx.method, path: ctx.path, err: error }, 'unexpected error');
    ctx.status = 500;
    ctx.body = { error: 'Internal server error', request_id: requestId };
  }
}

/** `pages`: the web interface's middleware (runtime/ui/, a higher layer), handed over by the composition root. */
export function createApp(services: Services, pages?: (services: Services) => Koa.Middleware): Koa {
  const { config } = services;
  const postgres = isPostgres(services.db);
  const app = new Koa();
  // Behind a reverse proxy, X-Forwarded-For gives the client address (for tokens' allowed_ips).
  app.proxy = config.trustProxy;
  const router = new Router();
  const prefixRouters = new Map<string, Router>();
  const routerKey = (version: string, path: string) => `${version} ${routePrefix(path)}`;
  const versionOf = (ctx: Context) => requestVersion(ctx)?.version ?? config.apiVersion;
  const routerFor = (version: string, path: string) => {
    let r = prefixRouters.get(routerKey(version, path));
    if (!r) prefixRouters.set(routerKey(version, path), (r = new Router().param('id', checkId)));
    return r;
  };
  /** Does any route of the request's version match this path (and with `method`, this method)? Both routers. */
  const matches = (ctx: Context, path: string, method: string) => {
    const found = [router.match(path, method), prefixRouters.get(routerKey(versionOf(ctx), path))?.match(path, method)];
    return { route: found.some((m) => m?.route), path: found.some((m) => m?.path.length) };
  };

  // Outermost: the answer as the other middleware left it is what is encoded.
  app.use(jsonAsBuffer);
  app.use(observeRequests(config.logRequests));
  app.use(async (ctx, next) => {
    const state = ctx.state as State;
    state.requestId = randomUUID();
    ctx.set('X-Request-ID', state.requestId);
    await handleErrors(ctx, next);
  });
  // The API version of the request (base path, Accept, API_VERSION); /v<version>/api/... is served as /api/... from here on.
  app.use(hostFallback(config));
  app.use(apiVersioning(config.apiVersion));
  // /healthz, /readyz and /metrics, before the trailing-slash redirect and authentication.
  app.use(healthProbes(services));
  app.use(metricsEndpoint(services));

  app.use(requestGuard(config));

  // Every path ends with a slash; without it, redirect and keep the query string.
  app.use(async (ctx, next) => {
    if (!ctx.path.endsWith('/') && matches(ctx, `${ctx.path}/`, ctx.method === 'HEAD' ? 'GET' : ctx.method).route) {
      ctx.status = 302;
      ctx.redirect(`${requestVersion(ctx)?.prefix ?? ''}${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    await next();
  });

  // /login/ and /logout/ (form-encoded or JSON bodies of their own, so before jsonBody).
  app.use(sessionRoutes(services));
  // The web interface and the browsable API (runtime/ui/): its forms carry their CSRF token in a
  // form field, so it authenticates them itself, before the API's authentication and jsonBody.
  if (pages) app.use(pages(services));
  // A body's share of the memory budget is taken (or the body refused, unread) before authentication waits on the database.
  app.use(reserveBody(config.limits));

  router.param('id', checkId);
  // The apps and endpoints a version serves, from its paths (`core` is 4.x's: object types and changes).
  const endpointsIn = (version: string) => modelList.filter((m) => m.routes.versions.includes(version))
    .map((m) => pathsIn(m, version).list.split('/')).map(([, , app, endpoint]) => ({ app, endpoint }));
  const appsIn = (version: string) => [...new Set([...APPS, ...endpointsIn(version).map((e) => e.app)])].sort();
  router.get('/api/', (ctx) => {
    ctx.body = Object.fromEntries(appsIn(versionOf(ctx)).map((a) => [a, absolute(ctx, `/api/${a}/`)]));
  });
  const everyApp = new Set(servedVersions.map((s) => s.version).flatMap(appsIn));
  for (const app of [...everyApp].filter((a) => a !== 'status')) {
    router.get(`/api/${app}/`, (ctx) => {
      if (!appsIn(versionOf(ctx)).includes(app)) throw errors.notFound();
      ctx.body = Object.fromEntries(endpointsIn(versionOf(ctx)).filter((e) => e.app === app).map((e) => e.endpoint).concat(app === 'users' ? ['config'] : app === 'extras' ? ['dashboard'] : []).sort().map((e) => [e, absolute(ctx, `/api/${app}/${e}/`)]));
    });
  }
  router.get('/api/status/', status(services, VERSION));
  router.post('/api/users/tokens/provision/', tokenProvision(services));
  const preferences = userConfig(services);
  router.get('/api/users/config/', preferences.get);
  router.patch('/api/users/config/', preferences.patch);
  const board = dashboard(services);
  router.get('/api/extras/dashboard/', board.get).put('/api/extras/dashboard/', board.put)
    .patch('/api/extras/dashboard/', board.patch).delete('/api/extras/dashboard/', board.remove);
  // The OpenAPI document and the interactive documentation, readable without a token.
  mountDocs(router);

  for (const entry of modelList) {
    const v = views(entry, services);
    const actions = entry.routes.extra.map((extra) => ({ extra, view: actionView(entry, extra, services) }));
    // each version that serves the model, at its path there (`moved:`)
    for (const version of entry.routes.versions) {
      const at = pathsIn(entry, version);
      const routerAt = (path: string) => routerFor(version, path);
      // the current paths, and where NetBox 3.6 had the model (legacy_app) for older clients
      const lists = [at.list, ...(entry.routes.legacy ? [entry.routes.legacy.list] : [])];
      const details = [at.detail, ...(entry.routes.legacy ? [entry.routes.legacy.detail] : [])];
      for (const list of lists) routerAt(list).get(list, v.list).options(list, v.options);
      for (const detail of details) routerAt(detail).get(detail, v.retrieve).options(detail, v.options);
      // `actions:` in the schema: extra detail routes served by the model's hooks (read-only models too)
      for (const { extra, view } of actions) {
        const path = extra.path.startsWith(entry.routes.detail) ? at.detail + extra.path.slice(entry.routes.detail.length) : extra.path;
        for (const method of extra.methods) routerAt(path).register(path, [method], view);
      }
      if (entry.definition.readOnly) continue;
      for (const list of lists) {
        routerAt(list).post(list, v.create)
          .put(list, (ctx) => v.update(ctx, false))
          .patch(list, (ctx) => v.update(ctx, true))
          .delete(list, v.remove);
      }
      for (const detail of details) {
        routerAt(detail).put(detail, (ctx) => v.update(ctx, false))
          .patch(detail, (ctx) => v.update(ctx, true))
          .delete(detail, v.remove);
      }
    }
  }

  const prefixRoutes = new Map([...prefixRouters].map(([key, r]) => [key, r.routes() as unknown as Koa.Middleware]));
  const rest = chain([
    // Bodies are read once the requester is known, so an anonymous one costs little.
    jsonBody(config.limits),
    // A write sent again with the key of one that committed gets the first answer (idempotency.ts).
    idempotency(services),
    ...(services.readDb ? [readRouting(services.db, services.readDb)] : []),
    router.routes() as unknown as Koa.Middleware,
    (ctx, next) => prefixRoutes.get(routerKey(versionOf(ctx), ctx.path))?.(ctx, next) ?? next(),
    async (ctx, next) => {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        const allowed = matches(ctx, ctx.path, 'GET').path || matches(ctx, ctx.path, 'POST').path;
        if (allowed) throw errors.methodNotAllowed(ctx.method);
        if (ctx.path.startsWith('/api/')) throw errors.notFound();
      }
    },
  ]);
  // Reads of model routes (every GET there is one) may start before the cache version is known, on
  // PostgreSQL, where that saves a round trip (identify.ts); SQLite reads it in microseconds.
  const speculative = (ctx: Koa.Context) => (ctx.method === 'GET' || ctx.method === 'HEAD') && postgres && prefixRoutes.has(routerKey(versionOf(ctx), ctx.path));
  app.use(identified(services, rest, speculative));
  return app;
}
