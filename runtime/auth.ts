/**
 * Who is asking: `Authorization: Token <40 hex>`. Keys are stored only as SHA-256 digests (a key has
 * 160 random bits, so a fast hash is enough); passwords are hashed with scrypt.
 */
import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { errors } from './errors.js';
import { model } from './registry.js';
import { parseNetwork } from './ipnet.js';
import type { Grant } from './permissions.js';

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

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return timingSafeEqual(actual, expected);
}

/** verifyPassword without blocking the event loop (login and token provisioning). */
export async function verifyPasswordAsync(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await new Promise<Buffer>((resolve, reject) => {
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
  return timingSafeEqual(actual, expected);
}

export function keyDigest(key: string): string {
  return createHash('sha256').update(key.toLowerCase()).digest('hex');
}

const ANONYMOUS: Auth = { user: null, writeEnabled: false, tokenId: null, grants: null };

/** Is `ip` inside one of the networks (a token's allowed_ips)? */
function allowedFrom(ip: string, networks: string[]): boolean {
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
  const digest = keyDigest(key);
  const tokens = model('Token').definition.table;
  const users = model('User').definition.table;
  const row = await db(`${tokens} as t`).join(`${users} as u`, 'u.id', 't.user_id')
    .select('t.id', 't.key_digest', 't.expires', 't.last_used', 't.allowed_ips', 't.write_enabled', 'u.id as user_id', 'u.username', 'u.is_superuser', 'u.is_active')
    .where('t.key_digest', digest).first();
  // The lookup is by digest; compare again in constant time so the check itself leaks nothing.
  if (!row || !timingSafeEqual(Buffer.from(row.key_digest, 'hex'), Buffer.from(digest, 'hex'))) throw errors.forbidden('Invalid token');
  // last_used is written at most once a minute, so reads stay reads.
  if (!row.last_used || now.getTime() - Date.parse(row.last_used) > 60_000) {
    await db(tokens).where('id', row.id).update({ last_used: now.toISOString() });
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
