/**
 * An aggregate's prefixes (of every VRF, the aggregate's own prefix included) in address order as a
 * hierarchy with their utilization, and the space no prefix covers as free blocks that open the
 * prefix form, as NetBox's aggregate page lists them. Free space shows when every prefix is listed.
 */
import { parseNetwork, toBigInt } from '../../core/ipnet.js';
import { toCidrs } from '../../hooks/available.js';
import type { TabView } from '../tab-view.js';
import { prefixRows, type FreeBlock } from './prefix-rows.js';

type Interval = { first: bigint; last: bigint; length: number };

/** The CIDR blocks of [first, last] that no interval covers, ascending. */
function uncovered(first: bigint, last: bigint, family: 4 | 6, taken: Interval[]): FreeBlock[] {
  const out: FreeBlock[] = [];
  let cursor = first;
  for (const t of [...taken].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))) {
    if (t.first > cursor) out.push(...toCidrs(cursor, t.first - 1n, family));
    if (t.last + 1n > cursor) cursor = t.last + 1n;
  }
  if (cursor <= last) out.push(...toCidrs(cursor, last, family));
  return out;
}

export const aggregatePrefixes: TabView = {
  fields: ['_depth', 'prefix'],
  async render(input) {
    const { object, rows, built, complete } = input;
    const net = parseNetwork(String(object.prefix));
    const parsed = rows.map((r) => { const n = parseNetwork(String(r.prefix)); return n ? { first: toBigInt(n.first), last: toBigInt(n.last), length: n.length } : null; });
    // The API orders by VRF first: address order (wider first) across VRFs.
    const order = rows.map((_, i) => i).sort((a, b) => {
      const x = parsed[a]; const y = parsed[b];
      if (!x || !y) return 0;
      return x.first < y.first ? -1 : x.first > y.first ? 1 : x.length - y.length;
    });
    const sorted = { ...input, rows: order.map((i) => rows[i]), built: order.map((i) => built[i]) };
    const free = net && complete ? uncovered(toBigInt(net.first), toBigInt(net.last), net.family, parsed.filter((p): p is Interval => !!p)) : [];
    const base = Math.min(...rows.map((r) => Number(r._depth ?? 0)), Infinity);
    return { rows: await prefixRows(sorted, free, net?.family ?? 4, Number.isFinite(base) ? base : 0, { tenant: object.tenant?.id }), columns: ['Utilization'] };
  },
};
