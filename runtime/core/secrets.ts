/**
 * How secrets are stored. Token keys are stored only as SHA-256 digests (a key has 160 random bits,
 * so a fast hash is enough); v2 tokens' secrets as HMAC-SHA256 digests keyed with a pepper, as
 * NetBox 4.5+ stores them, so a copy of the database alone cannot check guesses; passwords are hashed with scrypt, which is slow on purpose. Passwords
 * imported from NetBox keep Django's `pbkdf2_sha256$iterations$salt$hash` until their first login,
 * which rehashes them (needsRehash).
 */
import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A Django PBKDF2-SHA256 hash's parts, or null when `stored` is not one. */
function djangoHash(stored: string): { iterations: number; salt: string; expected: Buffer } | null {
  const [scheme, iterations, salt, hash] = stored.split('$');
  if (scheme !== 'pbkdf2_sha256' || !hash || !/^\d+$/.test(iterations) || Number(iterations) > 10_000_000) return null;
  return { iterations: Number(iterations), salt, expected: Buffer.from(hash, 'base64') };
}

/** Whether a stored hash is of another scheme than the one hashPassword makes (rehash it after a successful login). */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith('scrypt$');
}

export function verifyPassword(password: string, stored: string): boolean {
  const django = djangoHash(stored);
  if (django) return timingSafeEqual(pbkdf2Sync(password, django.salt, django.iterations, django.expected.length, 'sha256'), django.expected);
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return timingSafeEqual(actual, expected);
}

/** verifyPassword without blocking the event loop (login and token provisioning). */
export async function verifyPasswordAsync(password: string, stored: string): Promise<boolean> {
  const django = djangoHash(stored);
  if (django && django.expected.length) {
    const actual = await new Promise<Buffer>((resolve, reject) => pbkdf2(password, django.salt, django.iterations, django.expected.length, 'sha256', (err, key) => (err ? reject(err) : resolve(key))));
    return timingSafeEqual(actual, django.expected);
  }
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

/** A v2 token's stored digest: HMAC-SHA256 of its secret, keyed with a pepper (hex). */
export function tokenHmac(pepper: string, secret: string): string {
  return createHmac('sha256', pepper).update(secret).digest('hex');
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random letters and digits (v2 tokens' keys and secrets), each drawn without bias. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it are dropped so every character is equally likely
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}
