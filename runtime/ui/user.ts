/**
 * The signed-in user's own pages: `/user/profile/`, `/user/api-tokens/` (list, add, edit, delete;
 * through the API's token views, so RESTRICT_TOKEN_CREATION and the token hook's rules hold; a new
 * key is shown once, in the answer to the form that created it, and never again), `/user/password/`.
 */
import { byContentType, model } from '../data/registry.js';
import { inTransaction } from '../data/transactions.js';
import { updateObjects } from '../data/write.js';
import { verifyPasswordAsync } from '../core/secrets.js';
import { endUserSessions } from '../auth/sessions.js';
import { callView, errorText } from './api-call.js';
import { may, readForm, redirectToLogin } from './page.js';
import { sendPage } from './render.js';
import { forbidden, notFound } from './objects.js';
import type { UiContext } from './context.js';

const TOKEN_TYPE = 'users.token';
const TOKEN_PAGE = /^\/user\/api-tokens\/(?:(add)\/|(\d{1,15})\/(edit|delete)\/)?$/;

function tokenRow(t: Record<string, any>) {
  return {
    id: t.id, key: t.key, description: t.description || '—', writeEnabled: t.write_enabled ? 'Yes' : 'No',
    created: String(t.created ?? '').slice(0, 19).replace('T', ' '), expires: t.expires ? String(t.expires).slice(0, 19).replace('T', ' ') : 'Never',
    lastUsed: t.last_used ? String(t.last_used).slice(0, 19).replace('T', ' ') : 'Never',
  };
}

/** Handles /user/… paths; false for any other path. */
export async function userPages(ui: UiContext): Promise<boolean> {
  const { ctx, page, session } = ui;
  if (!ctx.path.startsWith('/user/')) return false;
  if (!session) {
    redirectToLogin(ctx);
    return true;
  }
  if (ctx.path === '/user/profile/') {
    const user = await ui.services.db(model('User').definition.table).where('id', session.userId).first();
    sendPage(ctx, { ...page, title: 'Profile' }, 'profile', {
      username: user.username, email: user.email || '—', name: [user.first_name, user.last_name].filter(Boolean).join(' ') || '—',
      superuser: session.isSuperuser ? 'Yes' : 'No', lastLogin: String(user.last_login ?? '').slice(0, 19).replace('T', ' '),
    });
    return true;
  }
  if (ctx.path === '/user/password/') {
    await passwordPage(ui);
    return true;
  }
  const m = TOKEN_PAGE.exec(ctx.path);
  if (!m) {
    notFound(ctx, page);
    return true;
  }
  await tokenPage(ui, m);
  return true;
}

async function tokenPage(ui: UiContext, m: RegExpExecArray): Promise<void> {
  const { ctx, page, session, services, api } = ui;
  const entry = byContentType.get(TOKEN_TYPE);
  if (!entry) return notFound(ctx, page);
  const v = api.get(entry)!;
  const [, add, id, action] = m;
  const mayAdd = may(ctx, entry, 'add', services);
  const common = { csrf: page.csrf, csrfField: page.csrfField };
  if (add) {
    if (!mayAdd) return forbidden(ctx, page);
    let error = '';
    let form: URLSearchParams | null = null;
    if (ctx.method === 'POST') {
      form = await readForm(ctx, session);
      // NetBox 4.6 lets its user choose a v1 or a v2 token; the web interface's default is the schema's (v1)
      const version = form.get('version');
      const body = { user: session!.userId, description: form.get('description') ?? '', write_enabled: form.getAll('write_enabled').includes('true'), expires: form.get('expires') || null, ...(version ? { version: Number(version) } : {}) };
      const result = await callView(ctx, v.create, { body });
      if (result.ok) {
        // The only time the key is rendered: this answer, which no cache keeps (Cache-Control: no-store).
        sendPage(ctx, { ...page, title: 'Token created' }, 'token-created', { key: result.body.key, description: result.body.description });
        return;
      }
      error = errorText(result.error);
    }
    sendPage(ctx, { ...page, title: 'Add a token' }, 'token-form', {
      ...common, heading: 'Add a token', action: '/user/api-tokens/add/', error, creating: true, v2: form?.get('version') === '2', description: form?.get('description') ?? '', writeEnabled: form ? form.getAll('write_enabled').includes('true') : true, expires: form?.get('expires') ?? '',
    }, error ? 400 : 200);
    return;
  }
  if (id) {
    const found = await callView(ctx, v.retrieve, { params: { id } });
    if (!found.ok) return notFound(ctx, page);
    if (action === 'delete') {
      if (ctx.method === 'POST') {
        await readForm(ctx, session);
        const result = await callView(ctx, v.remove, { params: { id } });
        if (!result.ok) page.messages.push({ text: errorText(result.error), kind: 'danger' });
        else {
          ctx.status = 303;
          ctx.redirect('/user/api-tokens/');
          return;
        }
      }
      sendPage(ctx, { ...page, title: 'Delete token' }, 'confirm', {
        ...common, heading: 'Delete token', question: `Delete the token ${found.body.key}? Clients using it will be refused.`, hasItems: false, items: [],
        action: ctx.path, cancelUrl: '/user/api-tokens/', button: 'Delete', hidden: [],
      });
      return;
    }
    let error = '';
    if (ctx.method === 'POST') {
      const form = await readForm(ctx, session);
      const body = { description: form.get('description') ?? '', write_enabled: form.getAll('write_enabled').includes('true'), expires: form.get('expires') || null };
      const result = await callView(ctx, (c) => v.update(c, true), { params: { id }, body });
      if (result.ok) {
        ctx.status = 303;
        ctx.redirect('/user/api-tokens/');
        return;
      }
      error = errorText(result.error);
    }
    const t = found.body;
    sendPage(ctx, { ...page, title: 'Edit token' }, 'token-form', {
      ...common, heading: `Edit token ${t.key}`, action: ctx.path, error, description: t.description, writeEnabled: t.write_enabled, expires: t.expires ? String(t.expires).slice(0, 16) : '',
    }, error ? 400 : 200);
    return;
  }
  const result = await callView(ctx, v.list, { query: new URLSearchParams({ user_id: String(session!.userId), limit: '1000' }), ownObjects: true });
  sendPage(ctx, { ...page, title: 'API tokens' }, 'tokens', {
    tokens: result.ok ? (result.body.results as Record<string, any>[]).map(tokenRow) : [], mayAdd, restricted: !mayAdd,
  });
}

async function passwordPage({ ctx, page, session, services }: UiContext): Promise<void> {
  const errors: Record<string, string> = {};
  if (ctx.method === 'POST') {
    const form = await readForm(ctx, session);
    const users = model('User');
    const row = await services.db(users.definition.table).where('id', session!.userId).first();
    const [old, fresh, again] = ['old_password', 'new_password', 'confirm_password'].map((k) => form.get(k) ?? '');
    if (!row || !(await verifyPasswordAsync(old, row.password ?? ''))) errors.old = 'Your old password was entered incorrectly.';
    if (!fresh) errors.fresh = 'This field is required.';
    else if (fresh !== again) errors.again = 'The two password fields didn’t match.';
    if (!Object.keys(errors).length) {
      const context = { db: services.db, user: { id: session!.userId, username: session!.username, isSuperuser: session!.isSuperuser, isActive: true }, now: new Date().toISOString(), requestId: (ctx.state as { requestId: string }).requestId, baseUrl: `${ctx.protocol}://${ctx.host}` };
      await inTransaction(services.db, (trx) => updateObjects(users, [{ id: session!.userId, password: fresh }], true, false, { ...context, db: trx }));
      // A new password ends every session, this one included.
      await endUserSessions(services.db, session!.userId);
      ctx.status = 303;
      ctx.redirect('/login/?next=/user/profile/');
      return;
    }
  }
  sendPage(ctx, { ...page, title: 'Change password' }, 'password', { ...errors, csrf: page.csrf, csrfField: page.csrfField }, Object.keys(errors).length ? 400 : 200);
}
