/**
 * `parent=<network>` on an IP address field as ranges of the address's ordering index (family,
 * `<f>_first`, `<f>_length`, `<f>_host`, id), so a page in that order is read from the index in order
 * and stops after its rows. The filter itself (filters.ts) is a range on `<f>_host`; SQLite's planner
 * answers an ordered page of it from the host index and sorts every match once it has statistics
 * (10,000 for 10.0.0.0/8 on the bench), whatever the LIMIT.
 *
 * An address lies in the parent P (length L) exactly when either
 * - its mask is at least L long: then its `_first` lies in P, and any `_first` in P past P's own
 *   first address comes with such a mask; so (`_first`, `_length`) >= (P.first, L) and
 *   `_first` <= P.last, one index range;
 * - its mask l is shorter: then its `_first` is P.first masked to l; so `_first` in those (at most
 *   L distinct) values, `_length` < L, `_host` in P: exact index seeks, the host range included.
 * The two parts are disjoint (by mask length) and sort in index order each, so
 * `part 1 UNION ALL part 2 ORDER BY … LIMIT` is a merge of two ordered index walks. Each part keeps
 * every condition of the list's query (the host range included), so the union is exactly its rows,
 * in the same order, whatever plan SQLite picks; only the cost depends on the plan.
 */
import type { Knex } from 'knex';
import { toBigInt, toBytes, type Network } from '../core/ipnet.js';

interface Parent { field: string; network: Network }

/** The list queries whose conditions include one parent network as a conjunct (filters.ts notes them). */
const parents = new WeakMap<Knex.QueryBuilder, Parent>();

export function noteParent(qb: Knex.QueryBuilder, field: string, network: Network): void {
  parents.set(qb, { field, network });
}

/** The parent network on `field`'s addresses that `qb`'s conditions include, if any. */
export function parentOf(qb: Knex.QueryBuilder): Parent | undefined {
  return parents.get(qb);
}

/** P.first masked to each length shorter than P's, without repeats (ascending). */
function shorterFirsts(n: Network): Buffer[] {
  const bits = n.family === 4 ? 32 : 128;
  const first = toBigInt(n.first);
  const out = new Map<bigint, Buffer>();
  for (let l = 0; l < n.length; l++) {
    const masked = first & (((1n << BigInt(l)) - 1n) << BigInt(bits - l));
    if (!out.has(masked)) out.set(masked, toBytes(masked));
  }
  return [...out.values()];
}

/**
 * The rows of `base` (a list's filtered query) as the two parts above, each selecting id and the
 * order's columns; the caller orders and cuts the union by those columns' names.
 */
export function parentParts(base: Knex.QueryBuilder, parent: Parent): Knex.QueryBuilder {
  const { field: f, network: n } = parent;
  const columns = ['id', 'family', `${f}_first`, `${f}_length`, `${f}_host`];
  const longer = base.clone().select(columns)
    .whereRaw('(??, ??) >= (?, ?)', [`${f}_first`, `${f}_length`, n.first, n.length])
    .where(`${f}_first`, '<=', n.last);
  if (n.length === 0) return longer;
  // The lengths written out: one text per parent length, and knex binds fewer values. The range on
  // the length as well: a planner that declines the IN list (statistics saying few rows share a
  // network) still stops at the shorter masks instead of walking every address of that network.
  const shorter = base.clone().select(columns)
    .whereIn(`${f}_first`, shorterFirsts(n))
    .whereRaw(`?? in (${Array.from({ length: n.length }, (_, l) => l).join(', ')})`, [`${f}_length`])
    .where(`${f}_length`, '<', n.length);
  return shorter.unionAll(longer);
}
