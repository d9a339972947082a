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
import { readRows } from '../data/reads.js';

/** Per page row, the prefixes strictly inside it (same family and VRF): one range query on the indexed bounds. */
async function children(db: Knex, rows: Row[]): Promise<Map<number, unknown>> {
  const ids = rows.map((r) => Number(r.id));
  // o.first <= p.last is implied by the containment, but stated it bounds the index range on both sides.
  const q = db('ipam_prefix as p').join('ipam_prefix as o', (j) => {
    j.on('o.family', 'p.family').andOn((x) => x.on('o.vrf_id', 'p.vrf_id').orOn((y) => y.onNull('o.vrf_id').andOnNull('p.vrf_id')));
    j.andOn('o.prefix_first', '>=', 'p.prefix_first').andOn('o.prefix_first', '<=', 'p.prefix_last').andOn('o.prefix_last', '<=', 'p.prefix_last').andOn('o.prefix_length', '>', 'p.prefix_length');
  }).whereIn('p.id', ids).groupBy('p.id').select('p.id as id').count('o.id as n');
  const map = new Map<number, unknown>(ids.map((id) => [id, 0]));
  // past knex's runner: on PostgreSQL it joins the page's other reads in one round trip (pg-batch.ts)
  for (const r of await readRows(db, q)) map.set(Number(r.id), Number(r.n));
  return map;
}

/** The networks containing `first` (16 bytes) at lengths `below - 1` down to 0 of its family, as hex, widest last (IPv4 sits in the last 4 bytes). */
function* widening(first: Buffer, family: number, below: number): Generator<[number, string]> {
  const out = Buffer.from(first);
  const offset = family === 4 ? 96 : 0;
  for (let length = below - 1; length >= 0; length--) {
    // Clearing the bits from `length` on, one at a time, walking outwards.
    const bit = offset + length;
    out[bit >> 3] &= ~(0x80 >> (bit & 7)) & 0xff;
    yield [length, out.toString('hex')];
  }
}

/**
 * Per page row, the prefixes strictly containing it (same family and VRF). A container of p starts at
 * p's address masked to the container's length, so there are at most 32 (128) candidates per row,
 * each an equality on the indexed lower bound: a range scan from the bottom of the address space
 * would read every prefix below p instead. Rows share their wider networks, so each network is
 * visited once: the walk outwards from a row ends at the first network already visited, whose
 * count of containers (at its length or wider) it takes over.
 */
async function depth(db: Knex, rows: Row[]): Promise<Map<number, unknown>> {
  const map = new Map<number, unknown>(rows.map((r) => [Number(r.id), 0]));
  const vrfOf = (v: unknown) => (v === null || v === undefined ? '' : String(Number(v)));
  // Per row, its networks from the narrowest container length outwards, as far as no other row got.
  const walks = new Map<Row, { length: number; hex: string }[]>();
  const seen = new Set<string>();
  const key = (family: unknown, vrf: string, length: number, hex: string) => `${family}|${vrf}|${length}|${hex}`;
  for (const r of rows) {
    const walk: { length: number; hex: string }[] = [];
    for (const [length, hex] of widening(r.prefix_first as Buffer, Number(r.family), Number(r.prefix_length))) {
      walk.push({ length, hex });
      const k = key(r.family, vrfOf(r.vrf_id), length, hex);
      if (seen.has(k)) break;
      seen.add(k);
    }
    walks.set(r, walk);
  }
  const candidates = [...new Set([...walks.values()].flatMap((w) => w.map((c) => c.hex)))];
  const families = [...new Set(rows.map((r) => Number(r.family)))];
  const longest = Math.max(...rows.map((r) => Number(r.prefix_length)));
  const present = new Set<string>();
  for (let i = 0; i < candidates.length; i += 5000) {
    // family leads the index on the bounds (family, prefix_first, prefix_last).
    const found = await db('ipam_prefix').select('family', 'vrf_id', 'prefix_first', 'prefix_length').whereIn('family', families).where('prefix_length', '<', longest).whereIn('prefix_first', candidates.slice(i, i + 5000).map((h) => Buffer.from(h, 'hex')));
    for (const o of found) present.add(key(o.family, vrfOf(o.vrf_id), Number(o.prefix_length), (o.prefix_first as Buffer).toString('hex')));
  }
  // Per visited network, the containers at its length or wider; a walk is resolved from its widest end inwards.
  const wider = new Map<string, number>();
  for (const r of rows) {
    const walk = walks.get(r)!;
    const vrf = vrfOf(r.vrf_id);
    let n = 0;
    for (let i = walk.length - 1; i >= 0; i--) {
      const k = key(r.family, vrf, walk[i].length, walk[i].hex);
      if (wider.has(k)) { n = wider.get(k)!; continue; }
      if (present.has(k)) n++;
      wider.set(k, n);
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
