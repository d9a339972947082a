/**
 * IPv4/IPv6 networks as NetLedger stores them: canonical text plus 16-byte big-endian bounds, so
 * containment and numeric order are plain byte comparisons on both SQLite and PostgreSQL.
 */
import { Address4, Address6 } from 'ip-address';

export interface Network {
  family: 4 | 6;
  /** canonical text with prefix length, e.g. 10.0.0.0/8 or 10.0.0.1/24 */
  text: string;
  length: number;
  /** the address as given (host part kept) */
  host: Buffer;
  first: Buffer;
  last: Buffer;
  /** true when the host part is not all zeros */
  hostBitsSet: boolean;
}

export function toBytes(value: bigint): Buffer {
  // through hex: one conversion instead of 16 BigInt shifts (a bulk write parses thousands)
  return Buffer.from(BigInt.asUintN(128, value).toString(16).padStart(32, '0'), 'hex');
}

/** An IPv4 address's 16 bytes (as toBytes writes them: zeros, then the four bytes). */
function v4Bytes(value: number): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeUInt32BE(value, 12);
  return buf;
}

export function toBigInt(buf: Buffer): bigint {
  // through hex, as toBytes: one conversion instead of a BigInt shift per byte (a page reads hundreds)
  return buf.length ? BigInt(`0x${(Buffer.isBuffer(buf) ? buf : Buffer.from(buf)).toString('hex')}`) : 0n;
}

export function fromBigInt(v: bigint, family: 4 | 6): string {
  if (family === 4 && v >= 0n && v <= 0xffffffffn) {
    // a dotted quad without the library's parse and format (the same text for every IPv4 address)
    const n = Number(v);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  return family === 4 ? Address4.fromBigInt(v).correctForm() : Address6.fromBigInt(v).correctForm();
}

export function fromBytes(buf: Buffer, family: 4 | 6): string {
  return fromBigInt(toBigInt(buf), family);
}

/** Parses `a.b.c.d[/n]` or an IPv6 address; a bare address gets /32 or /128. Returns null when invalid. */
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** A dotted quad in its canonical form (no leading zeros, each part at most 255). */
const CANONICAL_V4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

export function parseNetwork(input: string): Network | null {
  if (typeof input !== 'string') return null;
  const value = input.trim();
  const [addr, lenText, ...rest] = value.split('/');
  if (rest.length || !addr) return null;
  const family: 4 | 6 = addr.includes(':') ? 6 : 4;
  const max = family === 4 ? 32 : 128;
  if (lenText !== undefined && !/^\d{1,3}$/.test(lenText)) return null;
  const length = lenText === undefined ? max : Number(lenText);
  if (length > max) return null;
  let host: bigint;
  const quad = family === 4 ? CANONICAL_V4.exec(addr) : null;
  if (quad) {
    // the usual case, without the library (its parse and correctForm give the same for a canonical
    // quad) and in 32-bit numbers rather than BigInts: a bulk write parses thousands
    const h = ((+quad[1] << 24) >>> 0) + (+quad[2] << 16) + (+quad[3] << 8) + +quad[4];
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    const first = (h & mask) >>> 0;
    return { family, length, text: `${addr}/${length}`, host: v4Bytes(h), first: v4Bytes(first), last: v4Bytes((first | ~mask) >>> 0), hostBitsSet: h !== first };
  }
  try {
    if (family === 4) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(addr) || !Address4.isValid(addr)) return null;
      host = new Address4(addr).bigInt();
    } else {
      if (!Address6.isValid(addr) || addr.includes('%')) return null;
      host = new Address6(addr).bigInt();
    }
  } catch {
    return null;
  }
  const hostBits = BigInt(max - length);
  const mask = ((1n << BigInt(max)) - 1n) ^ ((1n << hostBits) - 1n);
  const first = host & mask;
  const last = first | ((1n << hostBits) - 1n);
  const hostText = family === 4 ? Address4.fromBigInt(host).correctForm() : Address6.fromBigInt(host).correctForm();
  return { family, length, text: `${hostText}/${length}`, host: toBytes(host), first: toBytes(first), last: toBytes(last), hostBitsSet: host !== first };
}

/** The network form of a parsed value: `10.1.2.3/8` → `10.0.0.0/8`. */
export function networkText(n: Network): string {
  return `${fromBytes(n.first, n.family)}/${n.length}`;
}
