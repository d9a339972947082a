/**
 * How full prefixes are, as NetBox computes it: a container by the space its child prefixes cover
 * (of every VRF when the container has none), any other prefix by the addresses its IP addresses
 * and IP ranges take out of its usable ones (an IPv4 prefix's network and broadcast addresses do
 * not count unless it is a pool or a /31 or /32); 100 when marked utilized. A whole table of
 * prefixes costs four queries, however many rows it has, sent together (one round trip on
 * PostgreSQL, runtime/data/pg-batch.ts). An aggregate is as full as its child
 * prefixes (every VRF) cover it; an IP range as its IP addresses (its VRF) take its addresses.
 */
import type { Knex } from 'knex';
import { toBigInt, toBytes } from '../core/ipnet.js';
import type { Row } from '../data/registry.js';
import { readRows } from '../data/reads.js';

const CHUNK = 900;
const truthy = (v: unknown) => v === true || v === 1;

/** Rows of a query over the listed prefixes (`p`), chunked to stay within bound-parameter limits. */
async function perPrefix(db: Knex, ids: number[], build: (ids: number[]) => Knex.QueryBuilder): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...await build(ids.slice(i, i + CHUNK)));
  return out;
}

/** perPrefix with the chunks started at once, past knex's runner: reads started together share a round trip. */
async function together(db: Knex, ids: number[], build: (ids: number[]) => Knex.QueryBuilder): Promise<Row[]> {
  const parts: Promise<Row[]>[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) parts.push(readRows(db, build(ids.slice(i, i + CHUNK))));
  return (await Promise.all(parts)).flat();
}

/** The number of addresses the union of [first, last] intervals covers. */
function covered(intervals: [bigint, bigint][]): bigint {
  intervals.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let total = 0n;
  let end = -1n;
  for (const [first, last] of intervals) {
    if (last <= end) continue;
    total += last - (first > end ? first : end + 1n) + 1n;
    end = last;
  }
  return total;
}

/** A join condition: `o` (another prefix, an address or a range) of the same VRF as `p`; a global container takes every VRF. */
function sameVrf(j: Knex.JoinClause, column: string, containers: boolean): void {
  j.andOn((x) => {
    x.on(column, 'p.vrf_id').orOn((y) => y.onNull(column).andOnNull('p.vrf_id'));
    if (containers) x.orOn((y) => y.onNull('p.vrf_id').andOnVal('p.status', '=', 'container'));
  });
}

/** `taken` of `size` in percent with two decimals, in bigint arithmetic (an IPv6 prefix's size is beyond a double's precision); at most 100. */
function percentOf(taken: bigint, size: bigint): number {
  return size > 0n ? Math.min(100, Number((taken * 10000n) / size) / 100) : 0;
}

/** The share of [first, last] the prefixes of every VRF inside it (or equal to it) cover, in percent. */
export async function aggregateUtilization(db: Knex, family: number, first: bigint, last: bigint): Promise<number> {
  const rows = await db('ipam_prefix').where('family', family)
    .where('prefix_first', '>=', toBytes(first)).where('prefix_last', '<=', toBytes(last)).select('prefix_first', 'prefix_last');
  return percentOf(covered(rows.map((r: Row) => [toBigInt(r.prefix_first), toBigInt(r.prefix_last)])), last - first + 1n);
}

/** The share of a range's addresses its IP addresses of the same VRF take (each address once), in percent; 100 when marked utilized. */
export async function rangeUtilization(db: Knex, range: { family: number; first: bigint; last: bigint; vrfId: number | null; markUtilized: boolean }): Promise<number> {
  if (range.markUtilized) return 100;
  const q = db('ipam_ipaddress').where('family', range.family)
    .where('address_host', '>=', toBytes(range.first)).where('address_host', '<=', toBytes(range.last));
  if (range.vrfId === null) q.whereNull('vrf_id'); else q.where('vrf_id', range.vrfId);
  const [row] = await q.countDistinct({ n: 'address_host' });
  return percentOf(BigInt(row?.n ?? 0), range.last - range.first + 1n);
}

/** Per prefix id, its utilization in percent (0-100, two decimals). */
export async function prefixUtilization(db: Knex, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!ids.length) return out;
  const used = new Map<number, [bigint, bigint][]>();
  const add = (id: unknown, first: Buffer, last: Buffer) => {
    const list = used.get(Number(id)) ?? [];
    list.push([toBigInt(first), toBigInt(last)]);
    used.set(Number(id), list);
  };
  const inside = (j: Knex.JoinClause, first: string, last: string) => j.on(`${first.split('.')[0]}.family`, 'p.family').andOn(first, '>=', 'p.prefix_first').andOn(first, '<=', 'p.prefix_last').andOn(last, '<=', 'p.prefix_last');
  // The status picks the join in SQL, so all four start at once: a container by its child prefixes,
  // any other prefix by its IP ranges and IP addresses (a prefix marked utilized ignores its rows).
  const [prefixes, children, ranges, addresses] = await Promise.all([
    together(db, ids, (part) => db('ipam_prefix').whereIn('id', part)
      .select('id', 'family', 'prefix_first', 'prefix_last', 'prefix_length', 'status', 'is_pool', 'mark_utilized')),
    together(db, ids, (part) => db('ipam_prefix as p').whereIn('p.id', part).where('p.status', 'container')
      .join('ipam_prefix as o', (j) => { inside(j, 'o.prefix_first', 'o.prefix_last').andOn('o.prefix_length', '>', 'p.prefix_length'); sameVrf(j, 'o.vrf_id', true); })
      .select('p.id as id', 'o.prefix_first as first', 'o.prefix_last as last')),
    together(db, ids, (part) => db('ipam_prefix as p').whereIn('p.id', part).whereNot('p.status', 'container')
      .join('ipam_iprange as o', (j) => { inside(j, 'o.start_address_host', 'o.end_address_host'); sameVrf(j, 'o.vrf_id', false); })
      .select('p.id as id', 'o.start_address_host as first', 'o.end_address_host as last')),
    together(db, ids, (part) => db('ipam_prefix as p').whereIn('p.id', part).whereNot('p.status', 'container')
      .join('ipam_ipaddress as o', (j) => { inside(j, 'o.address_host', 'o.address_host'); sameVrf(j, 'o.vrf_id', false); })
      .distinct('p.id as id', 'o.address_host as first')),
  ]);
  for (const r of children) add(r.id, r.first, r.last);
  for (const r of ranges) add(r.id, r.first, r.last);
  for (const r of addresses) add(r.id, r.first, r.first);
  for (const p of prefixes) {
    const id = Number(p.id);
    if (truthy(p.mark_utilized)) { out.set(id, 100); continue; }
    const family = Number(p.family);
    const length = Number(p.prefix_length);
    let size = 1n << BigInt((family === 4 ? 32 : 128) - length);
    if (p.status !== 'container' && family === 4 && length < 31 && !truthy(p.is_pool)) size -= 2n;
    out.set(id, percentOf(covered(used.get(id) ?? []), size));
  }
  return out;
}

/** Per aggregate id, the share of it the prefixes of every VRF inside it cover, in percent: one query for the whole table. */
export async function aggregatesUtilization(db: Knex, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!ids.length) return out;
  const aggregates = await perPrefix(db, ids, (part) => db('ipam_aggregate').whereIn('id', part).select('id', 'prefix_first', 'prefix_last'));
  const used = new Map<number, [bigint, bigint][]>();
  for (const r of await perPrefix(db, ids, (part) => db('ipam_aggregate as a').whereIn('a.id', part)
    .join('ipam_prefix as o', (j) => j.on('o.family', 'a.family').andOn('o.prefix_first', '>=', 'a.prefix_first').andOn('o.prefix_first', '<=', 'a.prefix_last').andOn('o.prefix_last', '<=', 'a.prefix_last'))
    .select('a.id as id', 'o.prefix_first as first', 'o.prefix_last as last'))) {
    const list = used.get(Number(r.id)) ?? [];
    list.push([toBigInt(r.first), toBigInt(r.last)]);
    used.set(Number(r.id), list);
  }
  for (const a of aggregates) {
    const first = toBigInt(a.prefix_first);
    const last = toBigInt(a.prefix_last);
    out.set(Number(a.id), percentOf(covered(used.get(Number(a.id)) ?? []), last - first + 1n));
  }
  return out;
}

/** Per IP range id, the share of its addresses IP addresses of its VRF take (each address once), in percent; 100 when marked utilized: one query for the whole table. */
export async function rangesUtilization(db: Knex, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!ids.length) return out;
  const ranges = await perPrefix(db, ids, (part) => db('ipam_iprange').whereIn('id', part).select('id', 'start_address_host', 'end_address_host', 'mark_utilized'));
  const taken = new Map<number, bigint>();
  for (const r of await perPrefix(db, ids, (part) => db('ipam_iprange as r').whereIn('r.id', part)
    .join('ipam_ipaddress as o', (j) => j.on('o.family', 'r.family').andOn('o.address_host', '>=', 'r.start_address_host').andOn('o.address_host', '<=', 'r.end_address_host')
      .andOn((x) => x.on('o.vrf_id', 'r.vrf_id').orOn((y) => y.onNull('o.vrf_id').andOnNull('r.vrf_id'))))
    .groupBy('r.id').select('r.id as id').countDistinct({ n: 'o.address_host' }))) taken.set(Number(r.id), BigInt(r.n ?? 0));
  for (const r of ranges) {
    const size = toBigInt(r.end_address_host) - toBigInt(r.start_address_host) + 1n;
    out.set(Number(r.id), truthy(r.mark_utilized) ? 100 : percentOf(taken.get(Number(r.id)) ?? 0n, size));
  }
  return out;
}
