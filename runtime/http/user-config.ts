/**
 * `/api/users/config/`: the requesting user's preferences, one JSON object per user (table
 * `users_userconfig`, made on first write).
 *
 * - GET: the stored object (`{}` when there is none yet);
 * - PATCH: deep-merges the body into it (objects are merged key by key; any other value, and an
 *   empty object, replaces what was there) and answers the merged object with 200.
 * Anonymous requests are 403; a read-only token may GET but not PATCH. Nobody sees another user's.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { isPostgres } from '../data/db.js';
import type { Services, State } from './state.js';

const TABLE = 'users_userconfig';
/** A preferences document larger than this (as JSON) is refused. */
export const USER_CONFIG_MAX_BYTES = 256 * 1024;

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `patch` merged into `base`: nested objects merge, everything else (and `{}`) replaces. */
export function deepMerge(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isObject(value) && Object.keys(value).length && isObject(base[key]) ? deepMerge(base[key] as Json, value) : value;
  }
  return out;
}

async function read(db: Knex, userId: number): Promise<Json> {
  const row = await db(TABLE).where('user_id', userId).first();
  const data = row ? JSON.parse(row.data) : {};
  return isObject(data) ? data : {};
}

export function caller(ctx: Context): number {
  const { auth } = ctx.state as State;
  if (!auth.user) throw errors.noCredentials();
  return auth.user.id;
}

export function userConfig(services: Services) {
  const { db } = services;
  return {
    async get(ctx: Context): Promise<void> {
      ctx.body = await read(db, caller(ctx));
    },

    async patch(ctx: Context): Promise<void> {
      const userId = caller(ctx);
      const state = ctx.state as State;
      if (!state.auth.writeEnabled) throw errors.forbidden();
      if (!state.hasBody || !isObject(state.body)) throw errors.validation({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
      const patch = state.body;
      ctx.body = await db.transaction(async (trx) => {
        // The row is made first and locked (PostgreSQL), so concurrent PATCHes from several
        // processes merge one after the other instead of losing each other's keys.
        await trx(TABLE).insert({ user_id: userId, data: '{}' }).onConflict('user_id').ignore();
        const locked = trx(TABLE).where('user_id', userId);
        if (isPostgres(trx)) locked.forUpdate();
        const row = await locked.first();
        const current = row ? JSON.parse(row.data) : {};
        const merged = deepMerge(isObject(current) ? current : {}, patch);
        const text = JSON.stringify(merged);
        if (Buffer.byteLength(text) > USER_CONFIG_MAX_BYTES) throw errors.validation({ non_field_errors: [`Preferences may not exceed ${USER_CONFIG_MAX_BYTES} bytes.`] });
        await trx(TABLE).where('user_id', userId).update({ data: text });
        return merged;
      });
    },
  };
}
