/**
 * Cookie sessions, for the browsable API and the web pages: `/login/` takes a username and password
 * and sets two cookies, `/logout/` ends the session.
 *
 * - `sessionid` (HttpOnly, SameSite=Lax, Secure over HTTPS): `<id>.<HMAC-SHA256(id, SECRET_KEY)>`,
 *   the id being 32 random bytes (base64url). The signature is checked in constant time; a cookie
 *   whose signature is wrong, or whose session is unknown, expired or of an inactive user, is simply
 *   ignored (the request is anonymous).
 * - `csrftoken` (readable by scripts, SameSite=Lax): sent back in the `X-CSRFToken` header, it is
 *   required on every POST, PUT, PATCH and DELETE a session cookie authenticates (else 403
 *   "CSRF Failed: CSRF token missing or incorrect.").
 * Sessions live in `users_session` (shared by every process), holding only SHA-256 digests of the id
 * and of the CSRF token, so a copy of the table opens nothing. They last SESSION_AGE_MS from login.
 *
 * An `Authorization: Token …` header always wins over the cookie (runtime/app.ts asks this module only
 * when the header authenticated nobody). Login attempts share the throttle of token provisioning.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../core/errors.js';
import { readSmall } from '../core/small-body.js';
import { checkCredentials, readCredentials } from './credentials.js';
import { model } from '../data/registry.js';
import type { Auth } from './authenticate.js';
import type { Services } from '../core/services.js';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'X-CSRFToken';
/** the form field that may carry the CSRF token instead of the header (the logout form) */
export const CSRF_FIELD = 'csrfmiddlewaretoken';
export const SESSION_AGE_MS = 14 * 24 * 3600 * 1000;
export const CSRF_FAILED = 'CSRF Failed: CSRF token missing or incorrect.';
const TABLE = 'users_session';
const DEFAULT_NEXT = '/api/docs/';
const FORM_LIMIT = 16 * 1024;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const digest = (value: string): string => createHash('sha256').update(value).digest('hex');

function sign(id: string, secret: string): string {
  return createHmac('sha256', secret).update(id).digest('base64url');
}

function sameDigest(value: string, storedHex: string): boolean {
  const a = Buffer.from(digest(value), 'hex');
  const b = Buffer.from(storedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The cookie value for a session id. */
export function cookieValue(id: string, secret: string): string {
  return `${id}.${sign(id, secret)}`;
}

/** The session id in a cookie value whose signature is right, else null. */
export function verifyCookie(value: string | undefined, secret: string): string | null {
  if (!value) return null;
  const dot = value.indexOf('.');
  if (dot < 0) return null;
  const id = value.slice(0, dot);
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(id, secret));
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
}

export interface Session {
  id: string;
  userId: number;
  csrfDigest: string;
  username: string;
  isSuperuser: boolean;
}

/** Starts a session; returns its id and CSRF token, which exist nowhere else in clear. */
export async function createSession(db: Knex, userId: number, now = Date.now()): Promise<{ id: string; csrf: string }> {
  const id = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  // Expired sessions are of no use to anyone; clear them out whenever somebody logs in.
  await db(TABLE).where('expires', '<=', now).delete();
  await db(TABLE).insert({ id_digest: digest(id), user_id: userId, csrf_digest: digest(csrf), created: new Date(now).toISOString(), expires: now + SESSION_AGE_MS });
  return { id, csrf };
}

/** The live session of an active user that this cookie value names, or null. */
export async function findSession(db: Knex, cookie: string | undefined, secret: string, now = Date.now()): Promise<Session | null> {
  const id = verifyCookie(cookie, secret);
  if (!id) return null;
  const users = model('User').definition.table;
  const row = await db(`${TABLE} as s`).join(`${users} as u`, 'u.id', 's.user_id')
    .select('s.csrf_digest', 's.expires', 'u.id as user_id', 'u.username', 'u.is_superuser', 'u.is_active')
    .where('s.id_digest', digest(id)).first();
  if (!row || Number(row.expires) <= now || !(row.is_active === true || row.is_active === 1)) return null;
  return { id, userId: Number(row.user_id), csrfDigest: row.csrf_digest, username: row.username, isSuperuser: row.is_superuser === true || row.is_superuser === 1 };
}

export async function endSession(db: Knex, id: string): Promise<void> {
  await db(TABLE).where('id_digest', digest(id)).delete();
}

/** Ends every session of a user (a changed password). */
export async function endUserSessions(db: Knex, userId: number): Promise<void> {
  await db(TABLE).where('user_id', userId).delete();
}

/** Is this the session's CSRF token? */
export function csrfMatches(session: Session, token: string | undefined | null): boolean {
  return !!token && sameDigest(token, session.csrfDigest);
}

/**
 * The session cookie's user for a request no Authorization header authenticated, with full rights;
 * null without a usable cookie. Writes must carry the session's CSRF token in X-CSRFToken (else 403).
 */
export async function sessionAuth(ctx: Context, services: Services): Promise<Auth | null> {
  const cookie = ctx.cookies.get(SESSION_COOKIE);
  if (!cookie) return null;
  // The answer depends on the cookie: shared caches must not hand it to somebody else.
  ctx.vary('Cookie');
  const session = await findSession(services.db, cookie, services.config.secretKey);
  if (!session) return null;
  if (UNSAFE.has(ctx.method) && !csrfMatches(session, ctx.get(CSRF_HEADER))) throw errors.forbidden(CSRF_FAILED);
  return {
    user: { id: session.userId, username: session.username, isSuperuser: session.isSuperuser, isActive: true },
    writeEnabled: true,
    tokenId: null,
    grants: null,
  };
}

// ---------------------------------------------------------------------------------------------
// /login/ and /logout/

function cookieOptions(ctx: Context, httpOnly: boolean) {
  return { path: '/', httpOnly, sameSite: 'lax' as const, secure: ctx.secure, maxAge: SESSION_AGE_MS, overwrite: true };
}

function clearCookies(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, null, { ...cookieOptions(ctx, true), maxAge: undefined });
  ctx.cookies.set(CSRF_COOKIE, null, { ...cookieOptions(ctx, false), maxAge: undefined });
}

/** A local path to go to after login; anything else (another site, `//host`) is ignored. */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || /[\\\s]/.test(value)) return loginPages.home;
  return value;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, content: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} | NetLedger</title>
  <style>
    body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; }
    main { max-width: 22rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 6px; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
    h1 { font-size: 1.3rem; margin-top: 0; }
    label { display: block; margin: 1rem 0 .3rem; }
    input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: .5rem; }
    button { margin-top: 1.5rem; padding: .5rem 1.2rem; }
    .error { color: #a00; }
  </style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

function loginPage(next: string, error = '', username = ''): string {
  return page('Log in', `  <h1>NetLedger: log in</h1>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
  <form method="post" action="/login/">
    <input type="hidden" name="next" value="${escapeHtml(next)}">
    <label for="username">Username</label>
    <input type="text" id="username" name="username" value="${escapeHtml(username)}" autocomplete="username" autofocus required>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <button type="submit">Log in</button>
  </form>`);
}

function loggedInPage(username: string, csrf: string | undefined, next: string): string {
  return page('Logged in', `  <h1>NetLedger</h1>
  <p>You are logged in as <strong>${escapeHtml(username)}</strong>.</p>
  <p><a href="${escapeHtml(next)}">Continue</a></p>
  <form method="post" action="/logout/">
    <input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf ?? '')}">
    <button type="submit">Log out</button>
  </form>`);
}

/**
 * How /login/ looks. This plain page serves the API alone; the web interface (runtime/ui/, a higher
 * layer) hands over its own through useLoginPages, with the Content-Security-Policy those pages need
 * and where a login without `next` lands.
 */
export interface LoginPages {
  login(next: string, error: string, username: string): string;
  loggedIn(username: string, csrf: string | undefined, next: string): string;
  csp: string;
  home: string;
}

let loginPages: LoginPages = {
  login: (next, error, username) => loginPage(next, error, username),
  loggedIn: loggedInPage,
  csp: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  home: DEFAULT_NEXT,
};

export function useLoginPages(pages: LoginPages): void {
  loginPages = pages;
}

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', loginPages.csp);
  ctx.body = body;
}

type BodyKind = 'json' | 'form' | 'none';

/** The body of a login or logout request: JSON or form-encoded, at most FORM_LIMIT bytes. */
async function readSmallBody(ctx: Context): Promise<{ kind: BodyKind; data: Record<string, unknown> }> {
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  const raw = await readSmall(ctx.req, FORM_LIMIT);
  if (type === 'application/x-www-form-urlencoded') return { kind: 'form', data: Object.fromEntries(new URLSearchParams(raw)) };
  if (!raw.trim()) return { kind: type === 'application/json' ? 'json' : 'none', data: {} };
  if (type !== 'application/json' && !type.endsWith('+json')) throw errors.unsupportedMediaType(ctx.get('Content-Type'));
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    throw errors.badJson((error as Error).message);
  }
  return { kind: 'json', data: (typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {}) as Record<string, unknown> };
}

/**
 * A browser sends Origin with every cross-site POST: one naming another site is refused, so no other
 * site can log a visitor in or out (login CSRF). Clients that send no Origin (curl, scripts) pass.
 */
function checkOrigin(ctx: Context): void {
  const origin = ctx.get('Origin');
  if (!origin) return;
  let host: string | null = null;
  try { host = new URL(origin).host; } catch { host = null; }
  if (host !== ctx.host) throw errors.forbidden(`CSRF Failed: Origin checking failed - ${origin} does not match any trusted origins.`);
}

async function login(ctx: Context, services: Services): Promise<void> {
  const { db, config } = services;
  const { kind, data } = await readSmallBody(ctx);
  const next = safeNext(data.next ?? ctx.query.next);
  const form = kind === 'form';
  let userRow;
  try {
    checkOrigin(ctx);
    userRow = await checkCredentials(ctx, db, readCredentials(data));
  } catch (error) {
    if (!form || !(error instanceof ApiError)) throw error;
    const detail = (error.body as { detail?: string }).detail ?? 'Enter a username and a password.';
    html(ctx, error.status, loginPages.login(next, detail, typeof data.username === 'string' ? data.username : ''));
    return;
  }
  // A new session every time (never one the browser brought along), and the old one is ended.
  const previous = await findSession(db, ctx.cookies.get(SESSION_COOKIE), config.secretKey);
  if (previous) await endSession(db, previous.id);
  const session = await createSession(db, Number(userRow.id));
  await db(model('User').definition.table).where('id', userRow.id).update({ last_login: new Date().toISOString() });
  ctx.cookies.set(SESSION_COOKIE, cookieValue(session.id, config.secretKey), cookieOptions(ctx, true));
  ctx.cookies.set(CSRF_COOKIE, session.csrf, cookieOptions(ctx, false));
  ctx.set('Cache-Control', 'no-store');
  if (form) {
    ctx.status = 302;
    ctx.redirect(next);
    return;
  }
  ctx.status = 200;
  ctx.body = { detail: 'Logged in.', user: { id: Number(userRow.id), username: userRow.username }, csrftoken: session.csrf };
}

async function logout(ctx: Context, services: Services): Promise<void> {
  const { db, config } = services;
  const { kind, data } = await readSmallBody(ctx);
  checkOrigin(ctx);
  const session = await findSession(db, ctx.cookies.get(SESSION_COOKIE), config.secretKey);
  if (session) {
    const token = ctx.get(CSRF_HEADER) || (typeof data[CSRF_FIELD] === 'string' ? (data[CSRF_FIELD] as string) : '');
    if (!csrfMatches(session, token)) throw errors.forbidden(CSRF_FAILED);
    await endSession(db, session.id);
  }
  clearCookies(ctx);
  ctx.set('Cache-Control', 'no-store');
  if (kind === 'form') {
    ctx.status = 302;
    ctx.redirect('/login/');
    return;
  }
  ctx.status = 200;
  ctx.body = { detail: 'Logged out.' };
}

/** Serves `/login/` (GET: the form; POST: log in) and `/logout/` (POST); other paths pass through. */
export function sessionRoutes(services: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    if (path === '/login' || path === '/logout') {
      ctx.status = 302;
      ctx.redirect(`${path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (path === '/login/') {
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        const next = safeNext(ctx.query.next);
        const session = await findSession(services.db, ctx.cookies.get(SESSION_COOKIE), services.config.secretKey);
        const csrf = ctx.cookies.get(CSRF_COOKIE);
        html(ctx, 200, session ? loginPages.loggedIn(session.username, session && csrfMatches(session, csrf) ? csrf : undefined, next) : loginPages.login(next, '', ''));
        return;
      }
      if (ctx.method === 'POST') return login(ctx, services);
      throw errors.methodNotAllowed(ctx.method);
    }
    if (path === '/logout/') {
      if (ctx.method === 'POST') return logout(ctx, services);
      throw errors.methodNotAllowed(ctx.method);
    }
    await next();
  };
}

