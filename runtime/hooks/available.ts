/**
 * Free space inside a prefix: the addresses (available-ips) and the CIDR blocks (available-prefixes)
 * not yet used in the prefix's VRF, computed from the indexed 16-byte bounds, and allocated first
 * fit in address order. Allocation holds a PostgreSQL advisory lock per resource type for the
 * transaction (SQLite has a single writer), so concurrent requests never hand out the same space.
 */
import type { Knex } from 'knex';
import { isPostgres } from '../data/db.js';
import { ApiError, errors } from '../core/errors.js';
import { fromBigInt, toBigInt, toBytes } from '../core/ipnet.js';
import { model, type ActionContext, type ActionResult, type Row } from '../data/registry.js';
import { Renderer } from '../data/serialize.js';

/** PostgreSQL advisory lock keys, one per kind of resource handed out (NetBox's keys). */
export const LOCKS = { ips: 100200, prefixes: 100100, vlans: 100300, asns: 100400 };

interface Block { first: bigint; last: bigint }

const bits = (family: number) => (family === 4 ? 32 : 128);

export async function lock(db: Knex, key: number): Promise<void> {
  if (isPostgres(db)) await db.raw('select pg_advisory_xact_lock(?)', [key]);
}

function sameVrf(q: Knex.QueryBuilder, vrfId: unknown): Knex.QueryBuilder {
  return vrfId === null || vrfId === undefined ? q.whereNull('vrf_id') : q.where('vrf_id', vrfId);
}

/**
 * Up to `limit` addresses from `first` to `last` that no IP address uses (nor, with `skipRanges`, an
 * IP range lying inside), ascending; `vrfId` undefined counts addresses of every VRF.
 */
export async function freeBetween(db: Knex, family: number, first: bigint, last: bigint, vrfId: unknown, limit: number, skipRanges = false): Promise<bigint[]> {
  const q = db('ipam_ipaddress').select('address_host').where('family', family)
    .where('address_host', '>=', toBytes(first)).where('address_host', '<=', toBytes(last)).orderBy('address_host');
  if (vrfId !== undefined) sameVrf(q, vrfId);
  const taken: Block[] = (await q).map((r: Row) => ({ first: toBigInt(r.address_host), last: toBigInt(r.address_host) }));
  if (skipRanges) {
    const ranges = db('ipam_iprange').select('start_address_host', 'end_address_host').where('family', family)
      .where('start_address_host', '>=', toBytes(first)).where('end_address_host', '<=', toBytes(last));
    sameVrf(ranges, vrfId ?? null);
    for (const r of await ranges) taken.push({ first: toBigInt(r.start_address_host), last: toBigInt(r.end_address_host) });
    taken.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  }
  const free: bigint[] = [];
  let next = first;
  for (const t of [...taken, { first: last + 1n, last: last + 1n }]) {
    while (next < t.first && next <= last && free.length < limit) free.push(next++);
    if (free.length >= limit || next > last) break;
    if (t.last >= next) next = t.last + 1n;
  }
  return free;
}

/**
 * The addresses of a prefix that may be handed out: all but the network and broadcast addresses
 * (IPv4) or the subnet-router anycast address (IPv6), unless a pool or a point-to-point net.
 */
export function usableBounds(family: number, length: number, first: bigint, last: bigint, pool: boolean): { first: bigint; last: bigint } {
  if (!pool && family === 4 && length < 31) return { first: first + 1n, last: last - 1n };
  if (!pool && family === 6 && length < 127) return { first: first + 1n, last };
  return { first, last };
}

/** Up to `limit` free host addresses of a prefix, ascending. */
async function freeAddresses(db: Knex, prefix: Row, limit: number): Promise<bigint[]> {
  if (prefix.mark_utilized === true || prefix.mark_utilized === 1) return [];
  const family = Number(prefix.family);
  const length = Number(prefix.prefix_length);
  const { first, last } = usableBounds(family, length, toBigInt(prefix.prefix_first), toBigInt(prefix.prefix_last), prefix.is_pool === true || prefix.is_pool === 1);
  // A global container counts addresses of every VRF.
  const vrf = prefix.vrf_id === null && prefix.status === 'container' ? undefined : prefix.vrf_id;
  // addresses inside the prefix's IP ranges (same VRF) are not handed out either
  return freeBetween(db, family, first, last, vrf, limit, true);
}

/** The largest CIDR blocks covering [first, last], ascending. */
export function toCidrs(first: bigint, last: bigint, family: number): { first: bigint; length: number }[] {
  const out: { first: bigint; length: number }[] = [];
  const max = bits(family);
  let start = first;
  while (start <= last) {
    let size = max;
    while (size > 0) {
      const block = 1n << BigInt(max - size + 1);
      if (start % block !== 0n || start + block - 1n > last) break;
      size--;
    }
    out.push({ first: start, length: size });
    start += 1n << BigInt(max - size);
  }
  return out;
}

/**
 * Free CIDR blocks of a prefix: the prefix minus its child prefixes in the same VRF. With `window`,
 * only the free space between `from` and `to`, each an address a child covers (a page's first and
 * last rows): no free block straddles such an address, so the blocks are those of the whole prefix
 * that lie between them, and only the children reaching into the window are read.
 */
export async function freeBlocks(db: Knex, prefix: Row, window?: { from: bigint; to: bigint }): Promise<{ first: bigint; length: number }[]> {
  const family = Number(prefix.family);
  let cursor = toBigInt(prefix.prefix_first);
  let end = toBigInt(prefix.prefix_last);
  const q = db('ipam_prefix').select('prefix_first', 'prefix_last').where('family', family)
    .where('prefix_first', '>=', prefix.prefix_first).where('prefix_last', '<=', prefix.prefix_last)
    .where('prefix_length', '>', prefix.prefix_length).orderBy('prefix_first');
  if (window) {
    if (window.from > cursor) cursor = window.from;
    if (window.to < end) end = window.to;
    // the children that start inside the window, and those containing its start
    q.where('prefix_first', '<=', toBytes(end)).where('prefix_last', '>=', toBytes(cursor));
  }
  sameVrf(q, prefix.vrf_id);
  const children: Block[] = (await q).map((r: Row) => ({ first: toBigInt(r.prefix_first), last: toBigInt(r.prefix_last) }));
  const blocks: { first: bigint; length: number }[] = [];
  for (const c of children) {
    if (c.first > cursor) blocks.push(...toCidrs(cursor, c.first - 1n, family));
    if (c.last + 1n > cursor) cursor = c.last + 1n;
  }
  if (cursor <= end) blocks.push(...toCidrs(cursor, end, family));
  return blocks;
}

export function limitOf(query: URLSearchParams): number {
  const raw = query.get('limit');
  const n = raw && /^\d+$/.test(raw) ? Number(raw) : 50;
  return n === 0 ? 1000 : Math.min(n, 1000);
}

/** The nested form of one object (a range's RIR, a VLAN's group), as other objects embed it. */
export async function nestedOf(ctx: ActionContext, name: string, id: unknown): Promise<Record<string, unknown> | null> {
  const renderer = new Renderer(model(name), { db: ctx.db, baseUrl: ctx.baseUrl, version: ctx.version });
  renderer.cache.need(name, id);
  await renderer.cache.resolve();
  return renderer.nested(model(name), id);
}

export function vrfOf(ctx: ActionContext): Promise<unknown> {
  return ctx.row.vrf_id === null ? Promise.resolve(null) : ctx.db('ipam_vrf').where('id', ctx.row.vrf_id).first()
    .then((v: Row) => ({ id: Number(v.id), url: `${ctx.baseUrl}/api/ipam/vrfs/${v.id}/`, display: v.rd ? `${v.name} (${v.rd})` : v.name, name: v.name, rd: v.rd }));
}

export function requests(body: unknown): { items: Record<string, unknown>[]; many: boolean } {
  if (body === undefined) return { items: [{}], many: false };
  if (Array.isArray(body)) return { items: body.map((b) => (b && typeof b === 'object' ? { ...(b as object) } : {})) as Record<string, unknown>[], many: true };
  if (body && typeof body === 'object') return { items: [{ ...(body as object) } as Record<string, unknown>], many: false };
  throw errors.validation({ non_field_errors: ['Invalid data. Expected a dictionary or a list of them.'] });
}

export async function availableIps(ctx: ActionContext): Promise<ActionResult> {
  const prefix = ctx.row;
  const family = Number(prefix.family) as 4 | 6;
  if (ctx.method === 'GET') {
    const vrf = await vrfOf(ctx);
    const free = await freeAddresses(ctx.db, prefix, limitOf(ctx.query));
    return { status: 200, body: free.map((v) => ({ family, address: `${fromBigInt(v, family)}/${prefix.prefix_length}`, vrf })) };
  }
  const { items, many } = requests(ctx.body);
  return ctx.create('IPAddress', async (trx) => {
    await lock(trx, LOCKS.ips);
    const free = await freeAddresses(trx, prefix, items.length);
    if (free.length < items.length) {
      throw new ApiError(409, { detail: `An insufficient number of IP addresses are available within prefix ${prefix.prefix} (${items.length} requested, ${free.length} available)` });
    }
    // The address and VRF come from the parent; anything else the client sent is kept.
    items.forEach((item, i) => { item.address = `${fromBigInt(free[i], family)}/${prefix.prefix_length}`; item.vrf = prefix.vrf_id; });
    return { items, many };
  });
}

export async function availablePrefixes(ctx: ActionContext): Promise<ActionResult> {
  const prefix = ctx.row;
  const family = Number(prefix.family) as 4 | 6;
  if (ctx.method === 'GET') {
    const vrf = await vrfOf(ctx);
    return { status: 200, body: (await freeBlocks(ctx.db, prefix)).map((b) => ({ family, prefix: `${fromBigInt(b.first, family)}/${b.length}`, vrf })) };
  }
  const { items, many } = requests(ctx.body);
  const problems = items.map((item) => {
    const length = item.prefix_length;
    if (length === undefined || length === null) return { prefix_length: ['This field is required.'] };
    if (typeof length !== 'number' || !Number.isInteger(length)) return { prefix_length: ['A valid integer is required.'] };
    // A length beyond the address size is invalid; one larger than the parent simply does not fit (409).
    if (length < 0 || length > bits(family)) return { prefix_length: [`Ensure this value is less than or equal to ${bits(family)}.`] };
    return {};
  });
  // NetBox checks the lengths as a list whatever was sent: its errors are a list of error objects.
  if (problems.some((p) => Object.keys(p).length)) throw errors.validation(problems);
  return ctx.create('Prefix', async (trx) => {
    await lock(trx, LOCKS.prefixes);
    const pool = await freeBlocks(trx, prefix);
    for (const item of items) {
      const length = item.prefix_length as number;
      // First fit: the first free block large enough; its remainder goes back to the pool.
      const index = pool.findIndex((b) => b.length <= length);
      if (index < 0) throw new ApiError(409, { detail: 'Insufficient space is available to accommodate the requested prefix size(s)' });
      const block = pool[index];
      const size = 1n << BigInt(bits(family) - length);
      const remainder = toCidrs(block.first + size, block.first + (1n << BigInt(bits(family) - block.length)) - 1n, family);
      pool.splice(index, 1, ...remainder);
      delete item.prefix_length;
      item.prefix = `${fromBigInt(block.first, family)}/${length}`;
      item.vrf = prefix.vrf_id;
    }
    return { items, many };
  });
}
