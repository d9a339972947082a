/**
 * POST /api/users/tokens/provision/: a username and password buy a new write-enabled token, shown
 * in full once. No token is needed to call it.
 */
import type { Context } from 'koa';
import { errors } from './errors.js';
import { verifyPassword } from './auth.js';
import { model } from './registry.js';
import { createObjects } from './write.js';
import { renderRows } from './serialize.js';
import type { Services, State } from './views.js';

export function tokenProvision(services: Services) {
  const { db } = services;
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as State;
    const body = (state.hasBody ? state.body : {}) as Record<string, unknown>;
    if (typeof body !== 'object' || body === null || typeof body.username !== 'string' || typeof body.password !== 'string' || !body.username || !body.password) {
      throw errors.forbidden('Username and password must be provided to provision a token.');
    }
    const users = model('User').definition.table;
    const user = await db(users).where('username', body.username).first();
    // Verify against a dummy hash when the user is unknown, so both paths take the same time.
    const stored = user?.password ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
    const ok = verifyPassword(body.password, stored) && !!user && (user.is_active === true || user.is_active === 1);
    if (!ok) throw errors.forbidden('Invalid username/password');
    const entry = model('Token');
    const input: Record<string, unknown> = { user: Number(user.id), write_enabled: true };
    for (const key of ['expires', 'description', 'write_enabled', 'allowed_ips']) if (key in body) input[key] = body[key];
    await db.transaction(async (trx) => {
      const result = await createObjects(entry, [input], false, { db: trx, user: null, now: new Date().toISOString(), requestId: (ctx.state as State).requestId, baseUrl: `${ctx.protocol}://${ctx.host}` });
      const rows = await trx(entry.definition.table).whereIn('id', result.ids);
      ctx.status = 201;
      ctx.body = (await renderRows(entry, rows, { db: trx, baseUrl: `${ctx.protocol}://${ctx.host}`, reveal: result.reveal }))[0];
    });
  };
}
