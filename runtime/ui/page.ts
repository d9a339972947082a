/**
 * Who is browsing, and what every page shows around its content: the session's user (the same
 * cookie as the browsable API, runtime/auth/sessions.ts), their object permissions, the CSRF token
 * forms carry, the menu (schema/menu.yaml, the links the user may follow), the theme. Form posts are checked against the session's CSRF
 * token; a visitor who may not read is sent to /login/?next=….
 */
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { readSmall, readSmallBytes } from '../core/small-body.js';
import { formBody, isMultipart } from '../http/form-body.js';
import { CSRF_COOKIE, CSRF_FAILED, CSRF_FIELD, SESSION_COOKIE, csrfMatches, findSession, type Session } from '../auth/sessions.js';
import { loadGrants } from '../auth/permissions.js';
import { syncCaches } from '../data/cache.js';
import { models } from '../data/registry.js';
import { navigation } from '../../generated/menu.js';
import { authorize, type Services, type State } from '../http/views.js';
import type { Action } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';

const FORM_LIMIT = 8 * 1024 * 1024;
export const THEME_COOKIE = 'theme';

export interface Page {
  title: string;
  user: { username: string; superuser: boolean } | null;
  csrf: string;
  csrfField: string;
  theme: 'light' | 'dark';
  next: string;
  /** the menus with a link the user may follow; `open` is the one of the current page (all of them on a page of no menu) */
  nav: { label: string; open: boolean; groups: { label: string; links: { label: string; url: string; current: boolean }[] }[] }[];
  messages: { text: string; kind: string }[];
}

export const APP_LABELS: Record<string, string> = {
  circuits: 'Circuits', core: 'Operations', dcim: 'Devices', extras: 'Customization', ipam: 'IPAM', tenancy: 'Organization',
  users: 'Users', virtualization: 'Virtualization', vpn: 'VPN', wireless: 'Wireless',
};

/** Title case of a verbose name (`device role` → `Device role`; plurals add an s or es). */
export function label(entry: ModelEntry, plural = false): string {
  const name = entry.definition.verboseName;
  const text = plural ? (/(s|x|ch|sh)$/.test(name) ? `${name}es` : /[^aeiou]y$/.test(name) ? `${name.slice(0, -1)}ies` : `${name}s`) : name;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function listUrl(entry: ModelEntry): string {
  return `/${entry.definition.app}/${entry.definition.endpoint}/`;
}

/** Can the request do this to the model at all (the API's own check)? */
export function may(ctx: Context, entry: ModelEntry, action: Action, services: Services): boolean {
  try {
    authorize(ctx, entry, action, services.config);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the session; sets ctx.state.auth as the API's authentication does. Beside the session it
 * syncs the process caches (custom field definitions, permissions, config contexts), as the API does
 * at a request's start, so that the page's reads may use them: unsynced, they are not trusted and
 * each model's definitions would be read again (a statement per model on every page).
 */
export async function authenticatePage(ctx: Context, services: Services): Promise<Session | null> {
  const [session] = await Promise.all([findSession(services.db, ctx.cookies.get(SESSION_COOKIE), services.config.secretKey), syncCaches(services.db)]);
  ctx.vary('Cookie');
  const state = ctx.state as State;
  state.auth = session
    ? { user: { id: session.userId, username: session.username, isSuperuser: session.isSuperuser, isActive: true }, writeEnabled: true, tokenId: null, grants: null }
    : { user: null, writeEnabled: false, tokenId: null, grants: null };
  if (state.auth.user && !state.auth.user.isSuperuser) state.auth.grants = await loadGrants(services.db, state.auth.user);
  return session;
}

/** The menus as this request shows them: each model's links if the user may view it, the current page's menu open. */
function menusFor(ctx: Context, services: Services): Page['nav'] {
  const menus = navigation.flatMap((menu) => {
    const groups = menu.groups.map((group) => ({
      label: group.label,
      links: group.items.flatMap((item) => {
        const entry = models[item.model];
        if (!entry || !may(ctx, entry, 'view', services)) return [];
        const url = item.url ?? listUrl(entry);
        return [{ label: item.label ?? label(entry, true), url, current: ctx.path.startsWith(url) }];
      }),
    })).filter((group) => group.links.length);
    return groups.length ? [{ label: menu.label, open: groups.some((g) => g.links.some((l) => l.current)), groups }] : [];
  });
  if (!menus.some((m) => m.open)) for (const m of menus) m.open = true;
  return menus;
}

/** The page frame for this request; the menu lists what the user may read. */
export function pageFrame(ctx: Context, services: Services, session: Session | null, title: string): Page {
  const csrf = ctx.cookies.get(CSRF_COOKIE);
  return {
    title,
    user: session ? { username: session.username, superuser: session.isSuperuser } : null,
    csrf: session && csrf && csrfMatches(session, csrf) ? csrf : '',
    csrfField: CSRF_FIELD,
    theme: ctx.cookies.get(THEME_COOKIE) === 'dark' ? 'dark' : 'light',
    next: ctx.originalUrl,
    nav: menusFor(ctx, services),
    messages: [],
  };
}

/** Anonymous: to the login form, coming back here afterwards. */
export function redirectToLogin(ctx: Context): void {
  ctx.status = 302;
  ctx.redirect(`/login/?next=${encodeURIComponent(ctx.originalUrl)}`);
}

/**
 * A form-encoded or multipart body (at most FORM_LIMIT bytes), its CSRF token checked against the
 * session. A multipart form's file is its field's value as a data URL (runtime/http/form-body.ts).
 */
export async function readForm(ctx: Context, session: Session | null): Promise<URLSearchParams> {
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  let form: URLSearchParams;
  if (type === 'application/x-www-form-urlencoded') form = new URLSearchParams(await readSmall(ctx.req, FORM_LIMIT));
  else if (isMultipart(type)) {
    const parts = await formBody(await readSmallBytes(ctx.req, FORM_LIMIT), ctx.get('Content-Type'));
    form = new URLSearchParams(Object.entries(parts).flatMap(([k, v]) => ([] as unknown[]).concat(v).map((x) => [k, String(x)])));
  } else throw errors.unsupportedMediaType(ctx.get('Content-Type'));
  if (!session || !csrfMatches(session, form.get(CSRF_FIELD))) throw errors.forbidden(CSRF_FAILED);
  form.delete(CSRF_FIELD);
  return form;
}

/** A `return_url` the form or query names, when it is a path of this site; else the fallback. */
export function returnUrl(params: URLSearchParams, fallback: string): string {
  const to = params.get('return_url') ?? '';
  return /^\/(?![/\\])[^\s]*$/.test(to) ? to : fallback;
}
