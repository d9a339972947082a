/**
 * A table of prefixes as a hierarchy: each row indented by its depth below `base`, with its
 * utilization, and free blocks as rows that open the prefix form with the block and `values`
 * filled in, all in address order (the child prefixes of a prefix, the prefixes of an aggregate).
 */
import { fromBigInt, parseNetwork, toBigInt } from '../../core/ipnet.js';
import type { State } from '../../http/views.js';
import { prefixUtilization } from '../../hooks/prefix_utilization.js';
import { barView } from '../object-table.js';
import { may } from '../page.js';
import { addUrl, type TabRow, type TabViewInput } from '../tab-view.js';

/** A free CIDR block: its first address and its length. */
export interface FreeBlock { first: bigint; length: number }

export const firstOf = (text: string): bigint => { const n = parseNetwork(text); return n ? toBigInt(n.first) : 0n; };

export async function prefixRows(input: TabViewInput, free: FreeBlock[], family: 4 | 6, base: number, values: Record<string, unknown>): Promise<TabRow[]> {
  const { ctx, services, other, rows, built, here } = input;
  const db = (ctx.state as State).readDb ?? services.db;
  const utilization = await prefixUtilization(db, rows.map((r) => Number(r.id)));
  const canAdd = may(ctx, other, 'add', services) && !other.definition.readOnly;
  const own = built.map((row, i) => {
    const r = rows[i];
    const depth = Math.max(0, Number(r._depth ?? base) - base);
    return { at: firstOf(String(r.prefix)), row: { ...row, indent: Array.from({ length: depth }, (_, n) => n), extra: [{ bar: barView(utilization.get(Number(r.id)) ?? 0) }] } as TabRow };
  });
  // Past the neighbours of a page (rows marked `edge`) free blocks belong to other pages: left out unbuilt.
  const lowest = built[0]?.edge ? own[0].at : -1n;
  const highest = built.length && built[built.length - 1].edge ? own[own.length - 1].at : null;
  // Blocks are named only once on the page: an IPv6 /16 may hold many pages of them.
  const freeRows = free.filter((b) => b.first > lowest && (highest === null || b.first < highest)).map(({ first, length }) => ({ at: first, prefix: `${fromBigInt(first, family)}/${length}` })).map(({ prefix, at }) => ({
    at,
    row: { free: { text: `${prefix} available`, url: canAdd ? addUrl(other, { prefix, ...values }, here) : null } } as TabRow,
  }));
  // Free blocks never overlap a listed prefix, so the first address alone orders them among the rows.
  const merged: TabRow[] = [];
  let f = 0;
  for (const o of own) {
    while (f < freeRows.length && freeRows[f].at < o.at) merged.push(freeRows[f++].row);
    merged.push(o.row);
  }
  while (f < freeRows.length) merged.push(freeRows[f++].row);
  return merged;
}
