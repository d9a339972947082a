/**
 * The browsable API: an /api/ URL opened by a browser (its Accept prefers text/html, or
 * `?format=api`) gets the very response an API client would, shown as a page: the JSON pretty-printed
 * with its URLs as links, the status, the allowed methods, a form that sends a JSON body (with the
 * session's CSRF token, from a static script), and login/logout links. `?format=json` and every
 * client that asks for JSON get JSON.
 */
import type { Context, Next } from 'koa';
import { ApiError, fromDatabaseError } from '../core/errors.js';
import { modelList } from '../data/registry.js';
import type { Services } from '../http/views.js';
import { pageFrame } from './page.js';
import { sendPage } from './render.js';
import { findSession, SESSION_COOKIE } from '../auth/sessions.js';

export function wantsBrowsable(ctx: Context): boolean {
  const format = ctx.URL.searchParams.get('format');
  if (format === 'api') return true;
  // ?format=json, and formats of the API's own (the OpenAPI document's yaml), are the API's to answer.
  if (format !== null) return false;
  if (!['GET', 'HEAD'].includes(ctx.method)) return false;
  const accept = ctx.get('Accept').toLowerCase();
  // Only a range naming html or text/ can prefer text/html (*/* prefers JSON): most API calls end here, unparsed.
  if (!accept.includes('html') && !accept.includes('text/')) return false;
  return ctx.accepts('application/json', 'text/html') === 'text/html';
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Pretty JSON as escaped HTML whose string values that are this site's URLs become links. */
export function jsonHtml(value: unknown, origin: string): string {
  const text = JSON.stringify(value, null, 2) ?? '';
  return text.split(/("(?:[^"\\]|\\.)*")/g).map((part, i) => {
    if (i % 2 === 0) return escape(part);
    let decoded: unknown;
    try { decoded = JSON.parse(part); } catch { decoded = null; }
    if (typeof decoded === 'string' && (decoded.startsWith(`${origin}/`) || /^\/api\//.test(decoded))) {
      const local = decoded.startsWith(origin) ? decoded.slice(origin.length) : decoded;
      return `"<a href="${escape(local)}">${escape(decoded)}</a>"`;
    }
    return escape(part);
  }).join('');
}

function matches(pattern: string, path: string): boolean {
  return new RegExp(`^${pattern.replace(/:id/g, '\\d+')}$`).test(path);
}

/** The methods this path answers: a model's list and detail routes, else GET. */
export function allowedMethods(path: string): string[] {
  for (const entry of modelList) {
    const writable = !entry.definition.readOnly;
    for (const at of [entry.routes, ...Object.values(entry.routes.byVersion ?? {})]) {
      if (matches(at.list, path)) return writable ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] : ['GET', 'HEAD', 'OPTIONS'];
      if (matches(at.detail, path)) return writable ? ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] : ['GET', 'HEAD', 'OPTIONS'];
    }
    for (const extra of entry.routes.extra) if (matches(extra.path, path)) return extra.methods;
  }
  return ['GET', 'HEAD', 'OPTIONS'];
}

export async function browsableApi(ctx: Context, services: Services, next: Next): Promise<void> {
  // The API sees the request an API client would send.
  if (ctx.URL.searchParams.get('format') === 'api') {
    const params = new URLSearchParams(ctx.querystring);
    params.delete('format');
    ctx.querystring = params.toString();
    (ctx.request as unknown as { memoizedURL?: URL }).memoizedURL = undefined;
  }
  try {
    await next();
  } catch (error) {
    const known = error instanceof ApiError ? error : fromDatabaseError(error);
    if (!known) throw error;
    ctx.status = known.status;
    ctx.body = known.body;
    ctx.set(known.headers);
  }
  const body = ctx.body;
  // Only JSON answers become pages (the API docs, files and empty answers pass through).
  if (body === null || body === undefined || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  const status = ctx.status;
  const session = await findSession(services.db, ctx.cookies.get(SESSION_COOKIE), services.config.secretKey);
  const page = pageFrame(ctx, services, session, 'API');
  const origin = `${ctx.protocol}://${ctx.host}`;
  const methods = allowedMethods(ctx.path);
  ctx.set('Allow', methods.join(', '));
  const json = `${ctx.path}${ctx.querystring ? `?${ctx.querystring}&` : '?'}format=json`;
  sendPage(ctx, { ...page, nav: page.nav, title: `API ${ctx.path}` }, 'browsable', {
    path: ctx.path,
    crumbs: ctx.path.split('/').filter(Boolean).map((part, i, all) => ({ part, href: `/${all.slice(0, i + 1).join('/')}/` })),
    status,
    methods: methods.join(', '),
    writeMethods: methods.filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m)),
    json: jsonHtml(body, origin),
    jsonUrl: json,
    loggedIn: !!session,
    username: session?.username,
  }, status);
}
