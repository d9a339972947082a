/**
 * Who is asking: `Authorization: Token <40 hex>` (a v1 token) or `Authorization: Bearer
 * nbt_<key>.<secret>` (a v2 token, NetBox 4.5+). As in NetBox, the value decides the version, not the
 * word: `nbt_...` is v2 after either. A v1 key is stored only as a digest and found by it; a v2 token
 * is found by its key, then its secret's HMAC under the token's pepper is compared with the stored
 * one in constant time (core/secrets.ts, auth/peppers.ts).
 */
import { keyDigest, tokenHmac } from '../core/secrets.js';
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { model } from '../data/registry.js';
import { parseNetwork } from '../core/ipnet.js';
import type { Grant } from './permissions.js';
import { processCache, watchModels } from '../data/cache.js';
import type { Peppers } from './peppers.js';
import type { User } from '../core/user.js';

watchModels(['Token', 'User']);
/** Token rows with their user, by key digest or `v2:<key>` (emptied whenever a token or user changes, in any process). */
const tokenRows = processCache<string, Record<string, any> | undefined>();
/** When this process last wrote a token's last_used, by token id (the cached row keeps the value it was loaded with). */
const lastUsedWritten = new Map<number, number>();

/** Key → digest, so a client's repeated requests hash its key once (bounded; a full map starts again). */
const digests = new Map<string, string>();
function digestOf(key: string): string {
  let digest = digests.get(key);
  if (digest === undefined) {
    if (digests.size >= 10_000) digests.clear();
    digests.set(key, (digest = keyDigest(key)));
  }
  return digest;
}

export type { User } from '../core/user.js';

export interface Auth {
  user: User | null;
  /** false for a read-only token */
  writeEnabled: boolean;
  tokenId: number | null;
  /** the user's object permissions; null for superusers and anonymous requests */
  grants: Grant[] | null;
}

const ANONYMOUS: Auth = { user: null, writeEnabled: false, tokenId: null, grants: null };

/** Is `ip` inside one of the networks (a token's allowed_ips)? */
export function allowedFrom(ip: string, networks: string[]): boolean {
  const addr = parseNetwork(ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1'));
  if (!addr) return false;
  return networks.some((text) => {
    const n = parseNetwork(text);
    return !!n && n.family === addr.family && Buffer.compare(addr.host, n.first) >= 0 && Buffer.compare(addr.host, n.last) <= 0;
  });
}

const V2_PREFIX = 'nbt_';

/** The row of the token a header value names (v1: `<40 hex>`; v2: `nbt_<key>.<secret>`), or a 403. */
async function tokenRow(db: Knex, value: string, peppers: Peppers | undefined): Promise<Record<string, any>> {
  const tokens = model('Token').definition.table;
  const users = model('User').definition.table;
  const load = (where: Record<string, string>) => db(`${tokens} as t`).join(`${users} as u`, 'u.id', 't.user_id')
    .select('t.id', 't.key_digest', 't.version', 't.pepper_id', 't.enabled', 't.expires', 't.last_used', 't.allowed_ips', 't.write_enabled', 'u.id as user_id', 'u.username', 'u.is_superuser', 'u.is_active')
    .where(where).first();
  if (value.startsWith(V2_PREFIX)) {
    const dot = value.indexOf('.');
    if (dot < 0) throw errors.forbidden("Invalid authorization header: Could not parse key from v2 token. Did you mean to use 'Token' instead of 'Bearer'?");
    const key = value.slice(V2_PREFIX.length, dot);
    const secret = value.slice(dot + 1);
    const row = /^[A-Za-z0-9]{1,64}$/.test(key) ? await tokenRows.get(db, `v2:${key}`, () => load({ 't.v2_key': key })) : undefined;
    // A known key with a wrong secret answers as an unknown key does, so keys cannot be enumerated.
    const pepper = row && Number(row.version) === 2 ? peppers?.byId.get(Number(row.pepper_id)) : undefined;
    const expected = Buffer.from(String(row?.key_digest ?? ''), 'hex');
    const actual = Buffer.from(tokenHmac(pepper ?? '', secret), 'hex');
    if (!pepper || expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw errors.forbidden('Invalid v2 token');
    return row!;
  }
  if (!/^[0-9a-fA-F]{40}$/.test(value)) throw errors.forbidden('Invalid token');
  const digest = digestOf(value);
  const row = await tokenRows.get(db, digest, () => load({ 't.key_digest': digest }));
  // The lookup is by digest; compare again in constant time so the check itself leaks nothing.
  if (!row || Number(row.version ?? 1) !== 1 || !timingSafeEqual(Buffer.from(row.key_digest, 'hex'), Buffer.from(digest, 'hex'))) throw errors.forbidden('Invalid token');
  return row;
}

/**
 * Reads the Authorization header; no header is anonymous, a bad one is a 403 that says why.
 * `clientIp` is checked against the token's allowed_ips; `peppers` check v2 tokens.
 */
export async function authenticate(db: Knex, header: string | undefined, now: Date, clientIp = '', peppers?: Peppers): Promise<Auth> {
  if (!header) return ANONYMOUS;
  const [scheme, ...rest] = header.trim().split(/\s+/);
  if (!['token', 'bearer'].includes(scheme.toLowerCase())) return ANONYMOUS;
  if (!rest.length) throw errors.forbidden('Invalid token header. No credentials provided.');
  if (rest.length > 1) throw errors.forbidden('Invalid token header. Token string should not contain spaces.');
  const row = await tokenRow(db, rest[0], peppers);
  const tokens = model('Token').definition.table;
  // last_used is written at most once a minute, so reads stay reads.
  const lastUsed = Math.max(row.last_used ? Date.parse(row.last_used) : 0, lastUsedWritten.get(Number(row.id)) ?? 0);
  if (now.getTime() - lastUsed > 60_000) {
    await db(tokens).where('id', row.id).update({ last_used: now.toISOString() });
    if (lastUsedWritten.size >= 10_000) lastUsedWritten.clear();
    lastUsedWritten.set(Number(row.id), now.getTime());
  }
  if (row.enabled === false || row.enabled === 0) throw errors.forbidden('Token disabled');
  if (row.expires && Date.parse(row.expires) <= now.getTime()) throw errors.forbidden('Token expired');
  const allowed: string[] = row.allowed_ips ? JSON.parse(row.allowed_ips) : [];
  if (allowed.length && !allowedFrom(clientIp, allowed)) throw errors.forbidden(`Source IP ${clientIp || 'unknown'} is not permitted to authenticate using this token.`);
  const active = row.is_active === true || row.is_active === 1;
  if (!active) throw errors.forbidden('User inactive');
  return {
    user: { id: Number(row.user_id), username: row.username, isSuperuser: row.is_superuser === true || row.is_superuser === 1, isActive: active },
    writeEnabled: row.write_enabled === true || row.write_enabled === 1,
    tokenId: Number(row.id),
    grants: null,
  };
}
