/**
 * Prefixes: `children` (prefixes strictly inside, same VRF) and `_depth` (prefixes strictly
 * containing it, same VRF), answered for a whole page with one query each on the indexed bounds.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row } from '../data/registry.js';
import { refuseDuplicates } from './ip_uniqueness.js';
import { availableIps, availablePrefixes } from './available.js';
import { vrfPresenceFilters } from './vrf_presence.js';
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';

/** Per page row, the prefixes strictly inside it (same family and VRF): one range query on the indexed bounds. */
async function children(db: Knex, rows: Row[]): Promise<Map<number, unknown>> {
  const ids = rows.map((r) => Number(r.id));
  // o.first <= p.last is implied by the containment, but stated it bounds the index range on both sides.
  const q = db('ipam_prefix as p').join('ipam_prefix as o', (j) => {
    j.on('o.family', 'p.family').andOn((x) => x.on('o.vrf_id', 'p.vrf_id').orOn((y) => y.onNull('o.vrf_id').andOnNull('p.vrf_id')));
    j.andOn('o.prefix_first', '>=', 'p.prefix_first').andOn('o.prefix_first', '<=', 'p.prefix_last').andOn('o.prefix_last', '<=', 'p.prefix_last').andOn('o.prefix_length', '>', 'p.prefix_length');
  }).whereIn('p.id', ids).groupBy('p.id').select('p.id as id').count('o.id as n');
  const map = new Map<number, unknown>(ids.map((id) => [id, 0]));
  for (const r of await q) map.set(Number(r.id), Number(r.n));
  return map;
}

/** The network of `first` (16 bytes) at `length` bits of its family (IPv4 sits in the last 4 bytes). */
function networkAt(first: Buffer, family: number, length: number): string {
  const bits = (family === 4 ? 96 : 0) + length;
  const out = Buffer.from(first);
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] &= (0xff << (8 - keep)) & 0xff;
  }
  return out.toString('hex');
}

/**
 * Per page row, the prefixes strictly containing it (same family and VRF). A container of p starts at
 * p's address masked to the container's length, so there are at most 32 (128) candidates per row,
 * each an equality on the indexed lower bound: a range scan from the bottom of the address space
 * would read every prefix below p instead.
 */
async function depth(db: Knex, rows: Row[]): Promise<Map<number, unknown>> {
  const map = new Map<number, unknown>(rows.map((r) => [Number(r.id), 0]));
  const candidates = new Set<string>();
  for (const r of rows) for (let l = 0; l < Number(r.prefix_length); l++) candidates.add(networkAt(r.prefix_first as Buffer, Number(r.family), l));
  const families = [...new Set(rows.map((r) => Number(r.family)))];
  const found: Row[] = [];
  const all = [...candidates];
  for (let i = 0; i < all.length; i += 5000) {
    // family leads the index on the bounds (family, prefix_first, prefix_last).
    found.push(...await db('ipam_prefix').select('family', 'vrf_id', 'prefix_first', 'prefix_length').whereIn('family', families).whereIn('prefix_first', all.slice(i, i + 5000).map((h) => Buffer.from(h, 'hex'))));
  }
  for (const r of rows) {
    const vrf = r.vrf_id === null || r.vrf_id === undefined ? null : Number(r.vrf_id);
    let n = 0;
    for (const o of found) {
      const length = Number(o.prefix_length);
      if (Number(o.family) !== Number(r.family) || length >= Number(r.prefix_length)) continue;
      if ((o.vrf_id === null || o.vrf_id === undefined ? null : Number(o.vrf_id)) !== vrf) continue;
      if ((o.prefix_first as Buffer).toString('hex') === networkAt(r.prefix_first as Buffer, Number(r.family), length)) n++;
    }
    map.set(Number(r.id), n);
  }
  return map;
}

/**
 * `?children=` and `?depth=` (with the number lookups): a correlated count of the prefixes strictly
 * inside (children) or strictly containing (depth) each row, same family and VRF.
 */
function countFilter(kind: 'children' | 'depth') {
  return (qb: Knex.QueryBuilder, values: string[], { db, table, lookup }: { db: Knex; table: string; lookup: string }) => {
    if (lookup === 'empty') { if (parseBoolean(`${kind}__empty`, values[0])) qb.whereRaw('1 = 0'); return; }
    const param = lookup === 'exact' ? kind : `${kind}__${lookup}`;
    const numbers = values.map((v) => {
      if (!/^\d+$/.test(v)) throw errors.badFilter(param, 'Enter a whole number.');
      return Number(v);
    });
    const p = (c: string) => `${table}.${c}`;
    const count = db(`${table} as o`).count('*').whereRaw('o.family = ??', [p('family')])
      .where((w) => w.whereRaw('o.vrf_id = ??', [p('vrf_id')]).orWhere((x) => x.whereNull('o.vrf_id').whereNull(p('vrf_id'))));
    if (kind === 'children') count.whereRaw('o.prefix_first >= ?? and o.prefix_first <= ?? and o.prefix_last <= ?? and o.prefix_length > ??', [p('prefix_first'), p('prefix_last'), p('prefix_last'), p('prefix_length')]);
    else count.whereRaw('o.prefix_first <= ?? and o.prefix_last >= ?? and o.prefix_length < ??', [p('prefix_first'), p('prefix_last'), p('prefix_length')]);
    const op = ({ exact: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>)[lookup] ?? '=';
    const { sql, bindings } = count.toSQL();
    qb.where((w) => { for (const n of numbers) w.orWhereRaw(`(${sql}) ${op} ?`, [...bindings, n]); });
  };
}

export const prefix: ModelHooks = {
  filters: { ...vrfPresenceFilters, prefix_children: countFilter('children'), prefix_depth: countFilter('depth') },
  computed: {
    prefix_children: (rows, { db }) => children(db, rows),
    prefix_depth: (rows, { db }) => depth(db, rows),
  },
  actions: { available_ips: availableIps, available_prefixes: availablePrefixes },
  async prepareMany(items, { db, rules }) {
    await refuseDuplicates(db, items, { table: 'ipam_prefix', column: 'prefix', noun: 'prefix', text: (row) => String(row.prefix) }, rules);
  },
};
