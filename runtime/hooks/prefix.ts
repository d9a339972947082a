/**
 * Prefixes: `children` (prefixes strictly inside, same VRF) and `_depth` (prefixes strictly
 * containing it, same VRF), answered for a whole page with one range query each on the indexed
 * bounds.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row } from '../data/registry.js';
import { refuseDuplicates } from './ip_uniqueness.js';
import { availableIps, availablePrefixes } from './available.js';
import { vrfPresenceFilters } from './vrf_presence.js';

async function related(db: Knex, rows: Row[], direction: 'children' | 'parents'): Promise<Map<number, unknown>> {
  const ids = rows.map((r) => Number(r.id));
  const q = db('ipam_prefix as p').join('ipam_prefix as o', (j) => {
    j.on('o.family', 'p.family').andOn((x) => x.on('o.vrf_id', 'p.vrf_id').orOn((y) => y.onNull('o.vrf_id').andOnNull('p.vrf_id')));
    if (direction === 'children') j.andOn('o.prefix_first', '>=', 'p.prefix_first').andOn('o.prefix_last', '<=', 'p.prefix_last').andOn('o.prefix_length', '>', 'p.prefix_length');
    else j.andOn('o.prefix_first', '<=', 'p.prefix_first').andOn('o.prefix_last', '>=', 'p.prefix_last').andOn('o.prefix_length', '<', 'p.prefix_length');
  }).whereIn('p.id', ids).groupBy('p.id').select('p.id as id').count('o.id as n');
  const map = new Map<number, unknown>(ids.map((id) => [id, 0]));
  for (const r of await q) map.set(Number(r.id), Number(r.n));
  return map;
}

export const prefix: ModelHooks = {
  filters: vrfPresenceFilters,
  computed: {
    prefix_children: (rows, { db }) => related(db, rows, 'children'),
    prefix_depth: (rows, { db }) => related(db, rows, 'parents'),
  },
  actions: { available_ips: availableIps, available_prefixes: availablePrefixes },
  async prepareMany(items, { db, rules }) {
    await refuseDuplicates(db, items, { table: 'ipam_prefix', column: 'prefix', noun: 'prefix', text: (row) => String(row.prefix) }, rules);
  },
};
