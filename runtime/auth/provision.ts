/**
 * POST /api/users/tokens/provision/: a username and password buy a new write-enabled token, shown
 * in full once. No token is needed to call it.
 *
 * - missing username or password: 400 with field errors;
 * - too many failures from the client's address: 429 with Retry-After, before the password is
 *   checked (runtime/throttle.ts; the count is kept in the database);
 * - wrong password, unknown or inactive user: 403 "Invalid username/password";
 * - RESTRICT_TOKEN_CREATION and the user is not a superuser: 403;
 * - otherwise 201 with the token, its plaintext included (a v2 token through the 4.6 API, as in
 *   NetBox 4.6; v1 through 3.7's). `expires`, `description`, `write_enabled`, `allowed_ips` (and
 *   `enabled`, `version`) may be given too.
 */
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { model } from '../data/registry.js';
import { createObjects } from '../data/write.js';
import { renderRows } from '../data/serialize.js';
import { checkCredentials, readCredentials } from './credentials.js';
import type { User } from './authenticate.js';
import type { Services } from '../core/services.js';
import type { RequestVersion } from '../core/types.js';
import type { RequestState } from './request-state.js';

const OPTIONAL = ['expires', 'description', 'write_enabled', 'allowed_ips', 'enabled', 'version'];

export function tokenProvision(services: Services) {
  const { db, config } = services;
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as RequestState;
    const body = (state.hasBody ? state.body : {}) as Record<string, unknown>;
    const row = await checkCredentials(ctx, db, readCredentials(body));
    const user: User = { id: Number(row.id), username: row.username, isSuperuser: row.is_superuser === true || row.is_superuser === 1, isActive: true };
    if (config.restrictTokenCreation && !user.isSuperuser) throw errors.forbidden();
    const entry = model('Token');
    const input: Record<string, unknown> = { user: user.id, write_enabled: true };
    for (const key of OPTIONAL) if (key in body) input[key] = body[key];
    // the API version it was asked through (runtime/http/versions.ts): its shape, its URLs, its default token version
    const api = (ctx.state as { api?: RequestVersion }).api;
    const origin = `${ctx.protocol}://${ctx.host}`;
    const rules = { enforceGlobalUnique: config.enforceGlobalUnique, tokenPeppers: services.peppers };
    await db.transaction(async (trx) => {
      const result = await createObjects(entry, [input], false, { db: trx, user, now: new Date().toISOString(), requestId: state.requestId, baseUrl: origin, version: api?.version, rules });
      const rows = await trx(entry.definition.table).whereIn('id', result.ids);
      ctx.status = 201;
      ctx.body = (await renderRows(entry, rows, { db: trx, baseUrl: api?.base ?? origin, origin, version: api?.version, reveal: result.reveal }))[0];
    });
    services.afterCommit?.();
  };
}
