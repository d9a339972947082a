/**
 * A prefix's child prefixes as a hierarchy (indented by depth below the prefix), each with its
 * utilization, and the free blocks between them (the API's available-prefixes) as rows that open
 * the prefix form with the block, VRF, site and tenant filled in, as NetBox's prefix page shows them.
 * Only the free space of the page is computed: between the rows just before and after it, or the
 * prefix's ends on the first and last pages.
 */
import { parseNetwork } from '../../core/ipnet.js';
import { freeBlocks } from '../../hooks/available.js';
import type { State } from '../../http/views.js';
import type { TabView } from '../tab-view.js';
import { firstOf, prefixRows } from './prefix-rows.js';

export const childPrefixes: TabView = {
  readsNeighbours: true,
  fields: ['_depth', 'prefix'],
  async render(input) {
    const { ctx, services, object, rows, built } = input;
    const net = parseNetwork(String(object.prefix));
    if (!net) return { rows: built, columns: [] };
    const db = (ctx.state as State).readDb ?? services.db;
    const from = built[0]?.edge ? firstOf(String(rows[0].prefix)) : undefined;
    const to = built.length && built[built.length - 1].edge ? firstOf(String(rows[rows.length - 1].prefix)) : undefined;
    const prefix = { family: net.family, prefix_first: net.first, prefix_last: net.last, prefix_length: net.length, vrf_id: object.vrf?.id ?? null };
    const blocks = await freeBlocks(db, prefix, from === undefined && to === undefined ? undefined : { from: from ?? 0n, to: to ?? (1n << 128n) });
    const values = { vrf: object.vrf?.id, site: object.site?.id, tenant: object.tenant?.id };
    return { rows: await prefixRows(input, blocks, net.family, Number(object._depth ?? 0) + 1, values), columns: ['Utilization'] };
  },
};
