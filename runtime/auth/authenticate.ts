/**
 * Who is asking: `Authorization: Token <40 hex>`. Keys are stored only as digests (core/secrets.ts).
 */
import { keyDigest } from '../core/secrets.js';
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { model } from '../data/registry.js';
import { parseNetwork } from '../core/ipnet.js';
import type { Grant } from './permissions.js';
import { processCache, watchModels } from '../data/cache.js';

watchModels(['Token', 'User']);
/** Token rows with their user, by key digest (emptied whenever a token or user changes, in any process). */
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

export interface User {
  id: number;
  username: string;
  isSuperuser: boolean;
  isActive: boolean;
}

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

/**
 * Reads the Authorization header; no header is anonymous, a bad one is a 403 that says why.
 * `clientIp` is checked against the token's allowed_ips.
 */
export async function authenticate(db: Knex, header: string | undefined, now: Date, clientIp = ''): Promise<Auth> {
  if (!header) return ANONYMOUS;
  const [scheme, ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== 'token') return ANONYMOUS;
  if (!rest.length) throw errors.forbidden('Invalid token header. No credentials provided.');
  if (rest.length > 1) throw errors.forbidden('Invalid token header. Token string should not contain spaces.');
  const key = rest[0];
  if (!/^[0-9a-fA-F]{40}$/.test(key)) throw errors.forbidden('Invalid token');
  const digest = digestOf(key);
  const tokens = model('Token').definition.table;
  const users = model('User').definition.table;
  const row = await tokenRows.get(db, digest, () => db(`${tokens} as t`).join(`${users} as u`, 'u.id', 't.user_id')
    .select('t.id', 't.key_digest', 't.expires', 't.last_used', 't.allowed_ips', 't.write_enabled', 'u.id as user_id', 'u.username', 'u.is_superuser', 'u.is_active')
    .where('t.key_digest', digest).first());
  // The lookup is by digest; compare again in constant time so the check itself leaks nothing.
  if (!row || !timingSafeEqual(Buffer.from(row.key_digest, 'hex'), Buffer.from(digest, 'hex'))) throw errors.forbidden('Invalid token');
  // last_used is written at most once a minute, so reads stay reads.
  const lastUsed = Math.max(row.last_used ? Date.parse(row.last_used) : 0, lastUsedWritten.get(Number(row.id)) ?? 0);
  if (now.getTime() - lastUsed > 60_000) {
    await db(tokens).where('id', row.id).update({ last_used: now.toISOString() });
    if (lastUsedWritten.size >= 10_000) lastUsedWritten.clear();
    lastUsedWritten.set(Number(row.id), now.getTime());
  }
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
