/**
 * A prefix's child prefixes as a hierarchy (indented by depth below the prefix), each with its
 * utilization, and the free blocks between them (the API's available-prefixes) as rows that open
 * the prefix form with the block, VRF, site and tenant filled in, as NetBox's prefix page shows them.
 */
import { getAction } from '../hook-view.js';
import type { TabView } from '../tab-view.js';
import { prefixRows } from './prefix-rows.js';

export const childPrefixes: TabView = {
  readsNeighbours: true,
  fields: ['_depth', 'prefix'],
  async render(input) {
    const { ctx, services, entry, object } = input;
    const free = await getAction(ctx, services, entry, 'available_prefixes', Number(object.id));
    const blocks = free?.ok ? (free.body as { prefix: string }[]).map((b) => b.prefix) : [];
    const values = { vrf: object.vrf?.id, site: object.site?.id, tenant: object.tenant?.id };
    return { rows: await prefixRows(input, blocks, Number(object._depth ?? 0) + 1, values), columns: ['Utilization'] };
  },
};
