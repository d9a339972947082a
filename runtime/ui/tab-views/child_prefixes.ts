/**
 * A prefix's child prefixes as a hierarchy (indented by depth below the prefix), each with its
 * utilization, and the free blocks between them (the API's available-prefixes) as rows that open
 * the prefix form with the block, VRF, site and tenant filled in, as NetBox's prefix page shows them.
 */
import { parseNetwork, toBigInt } from '../../core/ipnet.js';
import type { State } from '../../http/views.js';
import { prefixUtilization } from '../../hooks/prefix_utilization.js';
import { getAction } from '../hook-view.js';
import { may } from '../page.js';
import { addUrl, type TabRow, type TabView } from '../tab-view.js';

const firstOf = (text: string): bigint => { const n = parseNetwork(text); return n ? toBigInt(n.first) : 0n; };
const percent = (value: number) => `${value.toFixed(value % 1 ? 1 : 0)}%`;

export const childPrefixes: TabView = {
  fields: ['_depth', 'prefix'],
  async render({ ctx, services, entry, object, other, rows, built, here }) {
    const free = await getAction(ctx, services, entry, 'available_prefixes', Number(object.id));
    const blocks = free?.ok ? (free.body as { prefix: string }[]) : [];
    const db = (ctx.state as State).readDb ?? services.db;
    const utilization = await prefixUtilization(db, rows.map((r) => Number(r.id)));
    const below = Number(object._depth ?? 0) + 1;
    const canAdd = may(ctx, other, 'add', services) && !other.definition.readOnly;
    const own = built.map((row, i) => {
      const value = utilization.get(Number(rows[i].id)) ?? 0;
      return { at: firstOf(String(rows[i].prefix)), row: { ...row, indent: Array.from({ length: Math.max(0, Number(rows[i]._depth ?? below) - below) }, (_, n) => n), extra: [{ bar: { value, text: percent(value) } }] } as TabRow };
    });
    const freeRows = blocks.map((b) => ({
      at: firstOf(b.prefix),
      row: { free: { text: `${b.prefix} available`, url: canAdd ? addUrl(other, { prefix: b.prefix, vrf: object.vrf?.id, site: object.site?.id, tenant: object.tenant?.id }, here) : null } } as TabRow,
    }));
    // Free blocks never overlap a child, so the first address alone orders them among the children.
    const merged: TabRow[] = [];
    let f = 0;
    for (const o of own) {
      while (f < freeRows.length && freeRows[f].at < o.at) merged.push(freeRows[f++].row);
      merged.push(o.row);
    }
    while (f < freeRows.length) merged.push(freeRows[f++].row);
    return { rows: merged, columns: ['Utilization'] };
  },
};
