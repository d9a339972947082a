/**
 * `/api/extras/dashboard/`: the requesting user's dashboard, `{layout, config}` (table
 * `extras_dashboard`, one row per user, made on first write).
 *
 * - GET: the stored dashboard (an empty layout and config when there is none yet);
 * - PUT and PATCH: replace the fields given (`layout` a list of widget positions, `config` an object
 *   of widget settings keyed by widget id) and answer the dashboard;
 * - DELETE: removes it (204), so the next GET is empty again.
 * Anonymous requests are 403; a read-only token may GET only. Nobody sees another user's.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { caller, isObject, USER_CONFIG_MAX_BYTES } from './user-config.js';
import type { Services, State } from './state.js';

const TABLE = 'extras_dashboard';

interface Dashboard { layout: unknown[]; config: Record<string, unknown> }

async function read(db: Knex, userId: number): Promise<Dashboard> {
  const row = await db(TABLE).where('user_id', userId).first();
  return row ? { layout: JSON.parse(row.layout), config: JSON.parse(row.config) } : { layout: [], config: {} };
}

/** The fields of the body, checked: a 400 names each one that is not of its type. */
function given(body: unknown, partial: boolean): Partial<Dashboard> {
  if (!isObject(body)) throw errors.validation({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
  const problems: Record<string, string[]> = {};
  const out: Partial<Dashboard> = {};
  if ('layout' in body) {
    if (Array.isArray(body.layout) && body.layout.every(isObject)) out.layout = body.layout;
    else problems.layout = ['Give a list of widget positions (objects).'];
  } else if (!partial) problems.layout = ['This field is required.'];
  if ('config' in body) {
    if (isObject(body.config)) out.config = body.config;
    else problems.config = ['Give an object of widget settings keyed by widget id.'];
  } else if (!partial) problems.config = ['This field is required.'];
  if (Object.keys(problems).length) throw errors.validation(problems);
  return out;
}

export function dashboard(services: Services) {
  const { db } = services;
  const writer = (ctx: Context) => {
    const userId = caller(ctx);
    if (!(ctx.state as State).auth.writeEnabled) throw errors.forbidden();
    return userId;
  };
  const write = (partial: boolean) => async (ctx: Context): Promise<void> => {
    const userId = writer(ctx);
    const state = ctx.state as State;
    const changes = given(state.hasBody ? state.body : undefined, partial);
    ctx.body = await db.transaction(async (trx) => {
      const merged = { ...(await read(trx, userId)), ...changes };
      const row = { user_id: userId, layout: JSON.stringify(merged.layout), config: JSON.stringify(merged.config) };
      if (Buffer.byteLength(row.layout) + Buffer.byteLength(row.config) > USER_CONFIG_MAX_BYTES) {
        throw errors.validation({ non_field_errors: [`A dashboard may not exceed ${USER_CONFIG_MAX_BYTES} bytes.`] });
      }
      await trx(TABLE).insert(row).onConflict('user_id').merge();
      return merged;
    });
  };
  return {
    async get(ctx: Context): Promise<void> {
      ctx.body = await read(db, caller(ctx));
    },
    put: write(false),
    patch: write(true),
    async remove(ctx: Context): Promise<void> {
      await db(TABLE).where('user_id', writer(ctx)).delete();
      ctx.status = 204;
    },
  };
}
