/**
 * Username and password checks shared by token provisioning and the login form: the body's two
 * fields, the throttle (runtime/throttle.ts), then the password, in the same time whether or not the
 * user exists.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { hashPassword, needsRehash, verifyPasswordAsync } from '../core/secrets.js';
import { model, type Row } from '../data/registry.js';
import { beginRequestAttempt } from './throttle.js';

export const INVALID_CREDENTIALS = 'Invalid username/password';

export interface Credentials {
  username: string;
  password: string;
}

/** `username` and `password` from a request body; 400 with field errors when either is missing. */
export function readCredentials(body: unknown): Credentials {
  const input = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const problems: Record<string, string[]> = {};
  for (const name of ['username', 'password']) {
    const value = input[name];
    if (value === undefined || value === null) problems[name] = ['This field is required.'];
    else if (typeof value !== 'string') problems[name] = ['Not a valid string.'];
    else if (value === '') problems[name] = ['This field may not be blank.'];
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
  return { username: input.username as string, password: input.password as string };
}

let dummyHash: string | null = null;

/**
 * The active user with this username and password, or 403 "Invalid username/password". Counts as an
 * attempt for the throttle (429 with Retry-After once a source has failed too often; a success does
 * not count).
 */
export async function checkCredentials(ctx: Context, db: Knex, credentials: Credentials): Promise<Row> {
  const attempt = await beginRequestAttempt(ctx, db);
  const user: Row | undefined = await db(model('User').definition.table).where('username', credentials.username).first();
  // An unknown user is checked against a throwaway hash, so both answers take the same time.
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const matches = await verifyPasswordAsync(credentials.password, user?.password ?? dummyHash);
  if (!user || !matches || !(user.is_active === true || user.is_active === 1)) throw errors.forbidden(INVALID_CREDENTIALS);
  await attempt.succeeded();
  // A password imported with another scheme's hash (NetBox's): stored anew in this one.
  if (needsRehash(user.password)) await db(model('User').definition.table).where('id', user.id).update({ password: hashPassword(credentials.password) });
  return user;
}
