/**
 * The web interface, mounted by runtime/http/app.ts before the API's body parser: static files,
 * the browsable API (an /api/ URL a browser opens), and the pages, with NetBox's URL conventions.
 * Every page reads and writes through the API's views, so it has the API's permissions.
 */
import type { Context, Next } from 'koa';
import { modelList } from '../data/registry.js';
import { views, type Services } from '../http/views.js';
import type { ModelEntry } from '../core/types.js';
import { serveStatic } from './static.js';
import { authenticatePage, may, pageFrame, redirectToLogin } from './page.js';
import { listPage } from './list.js';
import { filterForm } from './filter-form.js';
import { addJournalEntry, deletePage, detailPage, editPage, forbidden, notFound, toggleBookmark } from './objects.js';
import type { ApiViews } from './api-views.js';
import { bulkPage, importPage } from './bulk.js';
import { tabsOf } from './tabs.js';
import { hasRenderConfig, RENDER_CONFIG_TAB } from './render-config.js';
import { homePage, searchPage } from './home.js';
import { changelogPage } from './changelog-page.js';
import { userPages } from './user.js';
import { deliveryPages } from './deliveries.js';
import { tracePage } from './trace.js';
import { cableFormPage } from './cable-form.js';
import { RACK_ELEVATIONS, rackElevationsPage } from './rack-elevations.js';
import { connectionsPage, isConnectionsPage } from './connections.js';
import { browsableApi, wantsBrowsable } from './browsable.js';
import { CSRF_FIELD, useLoginPages } from '../auth/sessions.js';
import type { UiContext } from './context.js';
import { CONTENT_SECURITY_POLICY, renderTemplate } from './render.js';
import { staticUrl } from './static.js';

const MODEL_PAGE = /^\/([a-z]+)\/([a-z0-9-]+)\/(?:(add|bulk-add|import|bulk|filter-form)\/|(\d{1,15})\/(?:([a-z][a-z0-9-]*)\/)?)?$/;

export function uiRoutes(services: Services) {
  // /login/ (runtime/auth/sessions.ts) in the interface's look; a login lands on the home page.
  useLoginPages({
    login: (next, error, username) => renderTemplate('login', { title: 'Log in', static: staticUrl, next, error, username }),
    loggedIn: (username, csrf, next) => renderTemplate('login', { title: 'Logged in', static: staticUrl, loggedIn: true, username, csrf: csrf ?? '', csrfField: CSRF_FIELD, next }),
    csp: CONTENT_SECURITY_POLICY,
    home: '/',
  });
  const api: ApiViews = new Map(modelList.map((entry) => [entry, views(entry, services)]));
  const byPath = new Map(modelList.map((entry) => [`${entry.definition.app}/${entry.definition.endpoint}`, entry]));
  const special = [userPages, deliveryPages, tracePage, cableFormPage, rackElevationsPage, connectionsPage];

  async function modelPage(ui: UiContext, entry: ModelEntry, m: RegExpExecArray): Promise<void> {
    const { ctx, page, session } = ui;
    const [, , , action, id, sub] = m;
    const post = ctx.method === 'POST';
    if (!post && ctx.method !== 'GET' && ctx.method !== 'HEAD') return forbidden(ctx, page);
    if (!may(ctx, entry, 'view', services)) return forbidden(ctx, page);
    if (action === 'add') return editPage(ctx, services, page, session, entry, api, null);
    // NetBox's bulk add (/ipam/ip-addresses/bulk-add/) is the add form of a model whose fields take range patterns
    if (action === 'bulk-add' && entry.definition.ui?.patterns.length) return editPage(ctx, services, page, session, entry, api, null);
    if (action === 'import') return importPage(ctx, services, page, session, entry, api);
    if (action === 'bulk' && post) return bulkPage(ctx, services, page, session, entry, api);
    if (action === 'filter-form') return filterForm(ctx, entry, api);
    if (action) return notFound(ctx, page);
    if (!id) return post ? forbidden(ctx, page) : listPage(ctx, services, page, entry, api);
    if (sub === 'edit') return editPage(ctx, services, page, session, entry, api, id);
    if (sub === 'delete') return deletePage(ctx, services, page, session, entry, api, id);
    if (sub === 'journal' && post) return addJournalEntry(ctx, page, session, entry, api, id);
    if (sub === 'bookmark' && post) return toggleBookmark(ctx, services, page, session, entry, api, id);
    if (post) return forbidden(ctx, page);
    const contextTab = sub === 'config-context' && !!entry.definition.fields.config_context;
    const renderTab = sub === RENDER_CONFIG_TAB && hasRenderConfig(ctx, services, entry);
    if (sub && sub !== 'changelog' && sub !== 'journal' && !contextTab && !renderTab && !tabsOf(entry).some((t) => t.path === sub)) return notFound(ctx, page);
    return detailPage(ctx, services, page, entry, api, id, sub ?? 'object');
  }

  return async (ctx: Context, next: Next): Promise<void> => {
    if (serveStatic(ctx)) return;
    if (ctx.path === '/favicon.ico') {
      ctx.status = 204;
      ctx.set('Cache-Control', 'public, max-age=86400');
      return;
    }
    if (ctx.path.startsWith('/api/') || ctx.path === '/api') {
      if (wantsBrowsable(ctx)) return browsableApi(ctx, services, next);
      return next();
    }
    const m = MODEL_PAGE.exec(ctx.path);
    const entry = m ? byPath.get(`${m[1]}/${m[2]}`) : undefined;
    const known = ctx.path === '/' || ctx.path === '/search/' || ctx.path === '/extras/changelog/' || ctx.path.startsWith('/user/') || !!entry
      || ctx.path.startsWith('/extras/webhook-deliveries/') || ctx.path === RACK_ELEVATIONS || isConnectionsPage(ctx.path);
    if (!known) {
      // A page path without its slash: redirect, keeping the query string.
      const slashed = `${ctx.path}/`;
      if (!ctx.path.endsWith('/') && (MODEL_PAGE.exec(slashed) && byPath.has(slashed.split('/').slice(1, 3).join('/')) || ['/search/', '/user/profile/', '/user/api-tokens/', '/user/password/', RACK_ELEVATIONS].includes(slashed))) {
        ctx.status = 302;
        ctx.redirect(`${slashed}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
        return;
      }
      await next();
      // Nothing answered (not /login/, not an API path): a page saying so, not a bare text 404.
      if (ctx.status === 404 && ctx.body == null && ['GET', 'HEAD'].includes(ctx.method)) {
        const session = await authenticatePage(ctx, services);
        notFound(ctx, pageFrame(ctx, services, session, 'Not found'));
      }
      return;
    }
    const started = performance.now();
    try {
      await servePage(ctx, m, entry);
    } finally {
      // How long the page took on the server (the browser's devtools and npm run bench:ui read it).
      ctx.set('Server-Timing', `page;dur=${(performance.now() - started).toFixed(1)}`);
    }
  };

  async function servePage(ctx: Context, m: RegExpExecArray | null, entry: ModelEntry | undefined): Promise<void> {
    const session = await authenticatePage(ctx, services);
    const page = pageFrame(ctx, services, session, 'NetLedger');
    const ui: UiContext = { ctx, services, page, session, api };
    // Anonymous visitors log in first, unless EXEMPT_VIEW_PERMISSIONS lets them read this.
    if (!session && (ctx.method !== 'GET' || !(entry ? may(ctx, entry, 'view', services) : ctx.path === '/' && page.nav.length > 0))) return redirectToLogin(ctx);
    for (const handler of special) if (await handler(ui)) return;
    if (ctx.path === '/') return homePage(ui);
    if (ctx.path === '/search/') return searchPage(ui);
    if (ctx.path === '/extras/changelog/') return changelogPage(ui);
    if (entry && m) return modelPage(ui, entry, m);
    return notFound(ctx, page);
  }
}
