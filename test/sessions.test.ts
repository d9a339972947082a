/**
 * Cookie sessions: the login form, JSON login, the session and CSRF cookies and their flags, CSRF on
 * writes, signatures, the Authorization header winning, logout, expiry, the throttle shared with token
 * provisioning, and a dump of the whole database holding nothing that opens a session or an account.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, randomBytes } from 'node:crypto';
import { isPostgres } from '../runtime/data/db.js';
import { THROTTLE_LIMIT } from '../runtime/auth/throttle.js';
import { ADMIN_TOKEN, expectStatus, startApp, type TestApp } from './helpers.js';

const SITES = '/api/dcim/sites/';
const USERS = '/api/users/users/';
const TOKENS = '/api/users/tokens/';
const CONFIG = '/api/users/config/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
const NOT_PERMITTED = { detail: 'You do not have permission to perform this action.' };
const CSRF_FAILED = { detail: 'CSRF Failed: CSRF token missing or incorrect.' };
const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };
const ALICE = { username: 'alice', password: 'Alice-session-passphrase-9' };

const starting = startApp();
let app: TestApp;
let seq = 0;
/** every secret this file has seen: none may be in the database */
const secrets: string[] = [ADMIN_TOKEN, ADMIN.password, ALICE.password];

interface Cookie { value: string; attributes: string[] }

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  cookies: Record<string, Cookie>;
}

function parseSetCookie(headers: Headers): Record<string, Cookie> {
  const out: Record<string, Cookie> = {};
  for (const line of headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const at = pair.indexOf('=');
    out[pair.slice(0, at)] = { value: pair.slice(at + 1), attributes: attributes.map((a) => a.toLowerCase()) };
  }
  return out;
}

/** A request with optional cookies, JSON or form body and extra headers; never follows redirects. */
async function send(method: string, path: string, options: { json?: unknown; form?: Record<string, string>; cookie?: string; csrf?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.json !== undefined) { headers['Content-Type'] = 'application/json'; body = JSON.stringify(options.json); }
  if (options.form) { headers['Content-Type'] = 'application/x-www-form-urlencoded'; body = new URLSearchParams(options.form).toString(); }
  if (options.cookie) headers.Cookie = options.cookie;
  if (options.csrf) headers['X-CSRFToken'] = options.csrf;
  const res = await fetch(app.url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* HTML */ }
  return { status: res.status, headers: res.headers, text, body: parsed, cookies: parseSetCookie(res.headers) };
}

interface Login { session: string; csrf: string; cookie: string; answer: Answer }

async function login(who = ADMIN): Promise<Login> {
  const answer = await send('POST', '/login/', { json: who });
  if (answer.status !== 200) throw new Error(`login as ${who.username}: ${answer.status} ${answer.text}`);
  const session = answer.cookies.sessionid.value;
  const csrf = answer.cookies.csrftoken.value;
  secrets.push(session, session.split('.')[0], csrf);
  return { session, csrf, cookie: `sessionid=${session}; csrftoken=${csrf}`, answer };
}

/** The API as a browser with these cookies (no Authorization header). */
const asBrowser = (l: Login, method: string, path: string, json?: unknown, csrf?: string) => send(method, path, { json, cookie: l.cookie, csrf });

async function siteCount(): Promise<number> {
  return (await app.api('GET', `${SITES}?limit=1`)).body.count;
}

const newSite = () => { const slug = `sess-site-${++seq}`; return { name: slug, slug }; };

const test = suite('sessions');
test.before(async () => {
  app = await starting;
  const alice = await app.api('POST', USERS, ALICE);
  expectStatus(alice, 201);
});

test('GET /login/ is an HTML form that loads nothing from another site', async () => {
  const page = await send('GET', '/login/?next=/api/dcim/sites/');
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.text, /<form[^>]+method="post"[^>]+action="\/login\/"/);
  assert.match(page.text, /name="username"/);
  assert.match(page.text, /type="password" id="password" name="password"/);
  assert.match(page.text, /name="next" value="\/api\/dcim\/sites\/"/);
  assert.not.match(page.text, /https?:\/\//, 'no external assets');
  assert.not.match(page.text, /<(script|link|img)\b[^>]*(src|href)="(?!\/static\/)/i, 'only the service\'s own static files');
  assert.not.match(page.headers.get('content-security-policy') ?? '', /unsafe-inline/, 'no inline script or style');
  assert.is(page.headers.get('x-frame-options'), 'DENY');
  assert.equal(page.cookies, {}, 'no cookie before logging in');
  const redirect = await send('GET', '/login');
  assert.is(redirect.status, 302);
  assert.is(redirect.headers.get('location'), '/login/');
  const escaped = await send('GET', '/login/?next=/"><script>x</script>');
  assert.not.ok(escaped.text.includes('<script>x'), 'next is escaped');
});

test('JSON login: wrong password is 403 without cookies; missing fields 400', async () => {
  const wrong = await send('POST', '/login/', { json: { username: 'admin', password: 'nope' } });
  assert.is(wrong.status, 403);
  assert.equal(wrong.body, { detail: 'Invalid username/password' });
  assert.equal(wrong.cookies, {});
  const missing = await send('POST', '/login/', { json: { username: 'admin' } });
  assert.is(missing.status, 400);
  assert.equal(missing.body, { password: ['This field is required.'] });
  const unknown = await send('POST', '/login/', { json: { username: 'ghost', password: 'nope' } });
  assert.is(unknown.status, 403);
  // Two failures so far; leave the throttle untouched for the rest of the file.
  await app.running.db('users_loginattempt').delete();
});

test('JSON login: 200, an HttpOnly SameSite=Lax signed session cookie and a readable csrftoken cookie', async () => {
  const l = await login();
  const { answer } = l;
  assert.is(answer.body.user.username, 'admin');
  assert.is(answer.body.csrftoken, l.csrf);
  const session = answer.cookies.sessionid;
  assert.match(session.value, /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/, '<32 random bytes>.<HMAC-SHA256>');
  assert.ok(session.attributes.includes('httponly'), `HttpOnly: ${session.attributes}`);
  assert.ok(session.attributes.includes('samesite=lax'), `SameSite=Lax: ${session.attributes}`);
  assert.ok(session.attributes.includes('path=/'));
  assert.not.ok(session.attributes.includes('secure'), 'plain HTTP: no Secure flag');
  const csrf = answer.cookies.csrftoken;
  assert.not.ok(csrf.attributes.includes('httponly'), 'scripts must read the CSRF token');
  assert.ok(csrf.attributes.includes('samesite=lax'));
  assert.match(csrf.value, /^[A-Za-z0-9_-]{43}$/);
  const admin = await app.api('GET', `${USERS}?username=admin`);
  assert.ok(admin.body.results[0].last_login, 'last_login is set');
});

test('the session cookie authenticates GET requests without a token', async () => {
  const l = await login();
  const list = await asBrowser(l, 'GET', SITES);
  assert.is(list.status, 200, list.text);
  assert.is(list.body.count, await siteCount());
  assert.match(list.headers.get('vary') ?? '', /cookie/i, 'Vary: Cookie');
  assert.is((await asBrowser(l, 'GET', USERS)).status, 200);
  assert.is((await asBrowser(l, 'GET', CONFIG)).status, 200);
  const page = await send('GET', '/login/', { cookie: l.cookie });
  assert.ok(page.text.includes('logged in as <strong>admin</strong>'), 'the login page knows who is logged in');
  assert.ok(page.text.includes(`value="${l.csrf}"`), 'and offers a logout form with the CSRF token');
});

test('writes with the session cookie need X-CSRFToken: without or wrong 403, with it 201', async () => {
  const l = await login();
  const before = await siteCount();
  const none = await asBrowser(l, 'POST', SITES, newSite());
  assert.is(none.status, 403);
  assert.equal(none.body, CSRF_FAILED);
  const wrong = await asBrowser(l, 'POST', SITES, newSite(), randomBytes(32).toString('base64url'));
  assert.is(wrong.status, 403);
  assert.equal(wrong.body, CSRF_FAILED);
  const other = await login();
  const crossed = await asBrowser(l, 'POST', SITES, newSite(), other.csrf);
  assert.is(crossed.status, 403, 'another session\'s CSRF token does not fit');
  assert.is(await siteCount(), before, 'nothing was created');
  const created = await asBrowser(l, 'POST', SITES, newSite(), l.csrf);
  assert.is(created.status, 201, created.text);
  const id = created.body.id;
  assert.is((await asBrowser(l, 'PATCH', `${SITES}${id}/`, { description: 'no csrf' })).status, 403);
  const patched = await asBrowser(l, 'PATCH', `${SITES}${id}/`, { description: 'by session' }, l.csrf);
  assert.is(patched.status, 200);
  assert.is(patched.body.description, 'by session');
  assert.is((await send('DELETE', `${SITES}${id}/`, { cookie: l.cookie })).status, 403, 'DELETE without CSRF');
  assert.is((await send('DELETE', `${SITES}${id}/`, { cookie: l.cookie, csrf: l.csrf })).status, 204);
  const config = await asBrowser(l, 'PATCH', CONFIG, { theme: 'dark' }, l.csrf);
  assert.is(config.status, 200);
  assert.is(config.body.theme, 'dark');
  // A session may mint a token (full rights), once CSRF is satisfied.
  const token = await asBrowser(l, 'POST', TOKENS, { user: 1, description: 'from a session' }, l.csrf);
  assert.is(token.status, 201);
  secrets.push(token.body.key);
});

test('a cookie with a wrong signature, or none, is anonymous', async () => {
  const l = await login();
  const [id, mac] = l.session.split('.');
  const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
  const forged = createHmac('sha256', 'not-the-secret-key-of-this-service-xx').update(id).digest('base64url');
  for (const value of [`${id}.${flipped}`, `${id}.${forged}`, id, `${id}.`, `.${mac}`, `${randomBytes(32).toString('base64url')}.${mac}`]) {
    const reply = await send('GET', SITES, { cookie: `sessionid=${value}` });
    assert.is(reply.status, 403, value);
    assert.equal(reply.body, NO_CREDENTIALS);
    const write = await send('POST', SITES, { json: newSite(), cookie: `sessionid=${value}; csrftoken=${l.csrf}`, csrf: l.csrf });
    assert.is(write.status, 403);
    assert.equal(write.body, NO_CREDENTIALS, 'a write with a bad cookie is anonymous, not a CSRF failure');
  }
});

test('an Authorization header wins over the cookie', async () => {
  const alice = await login(ALICE);
  // Alice has no permission; with the admin token her cookie does not matter.
  const hers = await asBrowser(alice, 'GET', SITES);
  assert.is(hers.status, 403);
  assert.equal(hers.body, NOT_PERMITTED, 'alice\'s session is alice, bound by her permissions');
  const withToken = await send('GET', SITES, { cookie: alice.cookie, headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.is(withToken.status, 200);
  const before = await siteCount();
  const write = await send('POST', SITES, { json: newSite(), cookie: alice.cookie, headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.is(write.status, 201, 'a token request needs no CSRF token, whatever cookies come along');
  assert.is(await siteCount(), before + 1);
  const admin = await login();
  const badToken = await send('GET', SITES, { cookie: admin.cookie, headers: { Authorization: `Token ${'c'.repeat(40)}` } });
  assert.is(badToken.status, 403, 'an invalid token is not rescued by a valid cookie');
  assert.equal(badToken.body, { detail: 'Invalid token' });
  // A read-only token's restriction holds even with a full-rights session cookie.
  const ro = await app.api('POST', TOKENS, { user: 1, write_enabled: false });
  secrets.push(ro.body.key);
  const roWrite = await send('POST', SITES, { json: newSite(), cookie: admin.cookie, csrf: admin.csrf, headers: { Authorization: `Token ${ro.body.key}` } });
  assert.is(roWrite.status, 403);
});

test('the login form redirects to next (local paths only) or home', async () => {
  const ok = await send('POST', '/login/', { form: { ...ADMIN, next: '/api/dcim/sites/?limit=5' } });
  assert.is(ok.status, 302, ok.text);
  assert.is(ok.headers.get('location'), '/api/dcim/sites/?limit=5');
  assert.ok(ok.cookies.sessionid && ok.cookies.csrftoken);
  secrets.push(ok.cookies.sessionid.value, ok.cookies.csrftoken.value);
  const get = await send('GET', '/api/dcim/sites/', { cookie: `sessionid=${ok.cookies.sessionid.value}` });
  assert.is(get.status, 200);
  for (const next of ['//evil.example/', 'https://evil.example/', 'javascript:alert(1)', '/\\evil.example', '']) {
    const reply = await send('POST', '/login/', { form: { ...ADMIN, next } });
    assert.is(reply.status, 302, next);
    assert.is(reply.headers.get('location'), '/', `next=${next}`);
    secrets.push(reply.cookies.sessionid.value);
  }
  const viaQuery = await send('POST', '/login/?next=/api/ipam/', { form: ADMIN });
  assert.is(viaQuery.headers.get('location'), '/api/ipam/');
  secrets.push(viaQuery.cookies.sessionid.value);
  const bad = await send('POST', '/login/', { form: { username: 'admin', password: 'wrong-form-password' } });
  assert.is(bad.status, 403);
  assert.match(bad.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok(bad.text.includes('Invalid username/password'));
  assert.ok(bad.text.includes('value="admin"'), 'the username is kept');
  assert.equal(bad.cookies, {});
  await app.running.db('users_loginattempt').delete();
});

test('a login POST from another site (Origin) is refused; the same origin is fine', async () => {
  const foreign = await send('POST', '/login/', { form: ADMIN, headers: { Origin: 'https://evil.example' } });
  assert.is(foreign.status, 403);
  assert.equal(foreign.cookies, {});
  const same = await send('POST', '/login/', { form: ADMIN, headers: { Origin: app.url } });
  assert.is(same.status, 302);
  secrets.push(same.cookies.sessionid.value);
});

test('logging in again gives a new session and ends the one the browser brought', async () => {
  const first = await login();
  const second = await send('POST', '/login/', { json: ADMIN, cookie: first.cookie });
  assert.is(second.status, 200);
  secrets.push(second.cookies.sessionid.value, second.cookies.csrftoken.value);
  assert.is.not(second.cookies.sessionid.value, first.session);
  assert.is((await send('GET', SITES, { cookie: first.cookie })).status, 403, 'the old session ended');
  assert.is((await send('GET', SITES, { cookie: `sessionid=${second.cookies.sessionid.value}` })).status, 200);
});

test('logout needs the CSRF token, then ends the session and clears the cookies', async () => {
  const l = await login();
  const refused = await send('POST', '/logout/', { cookie: l.cookie });
  assert.is(refused.status, 403);
  assert.equal(refused.body, CSRF_FAILED);
  assert.is((await asBrowser(l, 'GET', SITES)).status, 200, 'still logged in');
  const out = await send('POST', '/logout/', { cookie: l.cookie, csrf: l.csrf });
  assert.is(out.status, 200, out.text);
  assert.ok(out.cookies.sessionid && /1970/.test(out.cookies.sessionid.attributes.join(';')), `session cookie cleared: ${JSON.stringify(out.cookies)}`);
  const after = await asBrowser(l, 'GET', SITES);
  assert.is(after.status, 403);
  assert.equal(after.body, NO_CREDENTIALS);
  const write = await asBrowser(l, 'POST', SITES, newSite(), l.csrf);
  assert.equal(write.body, NO_CREDENTIALS);
  // The form variant: a hidden field instead of the header, then back to the login page.
  const f = await login();
  const form = await send('POST', '/logout/', { form: { csrfmiddlewaretoken: f.csrf }, cookie: f.cookie });
  assert.is(form.status, 302);
  assert.is(form.headers.get('location'), '/login/');
  assert.is((await asBrowser(f, 'GET', SITES)).status, 403);
  assert.is((await send('GET', '/logout/')).status, 405);
});

test('an expired session, an inactive user and a changed password all end the session', async () => {
  const expiring = await login();
  assert.is((await asBrowser(expiring, 'GET', SITES)).status, 200);
  const db = app.running.db;
  const rows = await db('users_session').select('id_digest', 'expires');
  assert.ok(rows.length > 0);
  // Expire every admin session at once; the admin logs in afresh below.
  await db('users_session').where('user_id', 1).update({ expires: Date.now() - 1000 });
  assert.is((await asBrowser(expiring, 'GET', SITES)).status, 403, 'expired');

  const bob = { username: 'bob', password: 'Bob-session-passphrase-3' };
  secrets.push(bob.password);
  const created = await app.api('POST', USERS, { ...bob, is_superuser: true });
  expectStatus(created, 201);
  const b = await login(bob);
  assert.is((await asBrowser(b, 'GET', SITES)).status, 200);
  expectStatus(await app.api('PATCH', `${USERS}${created.body.id}/`, { is_active: false }), 200);
  assert.is((await asBrowser(b, 'GET', SITES)).status, 403, 'inactive');
  expectStatus(await app.api('PATCH', `${USERS}${created.body.id}/`, { is_active: true }), 200);
  assert.is((await asBrowser(b, 'GET', SITES)).status, 200, 'active again, the session still runs');
  const newPassword = 'Bob-changed-passphrase-4';
  secrets.push(newPassword);
  expectStatus(await app.api('PATCH', `${USERS}${created.body.id}/`, { password: newPassword }), 200);
  assert.is((await asBrowser(b, 'GET', SITES)).status, 403, 'a new password ends the sessions');
  const again = await send('POST', '/login/', { json: { username: 'bob', password: newPassword } });
  assert.is(again.status, 200);
  secrets.push(again.cookies.sessionid.value, again.cookies.csrftoken.value);
  // Deleting the user deletes their sessions.
  expectStatus(await app.api('DELETE', `${USERS}${created.body.id}/`), 204);
  assert.is((await db('users_session').where('user_id', created.body.id)).length, 0);
});

test(`login shares the throttle of provisioning: after ${THROTTLE_LIMIT} failures, 429 with Retry-After even with the right password`, async () => {
  for (let i = 0; i < THROTTLE_LIMIT; i++) {
    const reply = await send('POST', '/login/', { json: { username: 'admin', password: `bad-${i}` } });
    assert.is(reply.status, 403);
  }
  const right = await send('POST', '/login/', { json: ADMIN });
  assert.is(right.status, 429);
  assert.ok(Number(right.headers.get('retry-after')) >= 1);
  assert.equal(right.cookies, {}, 'no session');
  const form = await send('POST', '/login/', { form: ADMIN });
  assert.is(form.status, 429, 'the form too');
  assert.ok(form.headers.get('retry-after'));
  const provision = await app.api('POST', `${TOKENS}provision/`, ADMIN, { token: null });
  expectStatus(provision, 429, 'and provisioning from the same address');
  await app.running.db('users_loginattempt').delete();
  expectStatus(await app.api('POST', `${TOKENS}provision/`, ADMIN, { token: null }), 201, 'once the failures are gone');
});

async function allTables(): Promise<string[]> {
  const db = app.running.db;
  if (isPostgres(db)) {
    const rows = await db.raw("select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'");
    return rows.rows.map((r: { table_name: string }) => r.table_name);
  }
  const rows = await db.raw("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'");
  return rows.map((r: { name: string }) => r.name);
}

test('a dump of every table holds no password, token key, session id or CSRF token; stored values open nothing', async () => {
  // Some live sessions to look for.
  const live = [await login(), await login(ALICE)];
  const db = app.running.db;
  const tables = await allTables();
  assert.ok(tables.includes('users_session') && tables.includes('users_token') && tables.includes('users_user'), tables.join(', '));
  const wanted = [...new Set([...secrets, ...secrets.map((s) => s.toUpperCase())])].filter((s) => s.length >= 8);
  const leaks: string[] = [];
  const stored: string[] = [];
  for (const table of tables) {
    for (const row of await db(table).select()) {
      for (const [column, value] of Object.entries(row as Record<string, unknown>)) {
        const text = Buffer.isBuffer(value) ? value.toString('hex') + value.toString('utf8') : String(value);
        for (const s of wanted) if (text.includes(s)) leaks.push(`${table}.${column}`);
        if (table === 'users_session' && typeof value === 'string') stored.push(value);
      }
    }
  }
  assert.equal([...new Set(leaks)], [], `secrets stored in the clear: ${[...new Set(leaks)].join(', ')}`);
  const sessions = await db('users_session').select();
  assert.ok(sessions.length >= 2, 'the live sessions are there');
  for (const s of sessions) assert.match(String(s.id_digest), /^[0-9a-f]{64}$/);
  // Neither a stored value as it is, nor one signed with the real secret key, is a usable cookie.
  const secret = app.running.config.secretKey;
  for (const value of stored) {
    for (const cookie of [value, `${value}.${createHmac('sha256', secret).update(value).digest('base64url')}`]) {
      const reply = await send('GET', SITES, { cookie: `sessionid=${cookie}` });
      assert.is(reply.status, 403, `stored value ${value.slice(0, 12)}… as a cookie`);
    }
  }
  // And the live sessions still work, so the stored form is what authenticates them.
  for (const l of live) assert.is((await asBrowser(l, 'GET', CONFIG)).status, 200);
  assert.is((await asBrowser(live[0], 'GET', SITES)).status, 200);
});

test.after(() => app.stop());
test.run();
