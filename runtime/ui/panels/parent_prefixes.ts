/**
 * An IP address's parent prefixes: the prefixes of its VRF that contain it, widest first, each with
 * its utilization, as NetBox's IP address page lists them.
 */
import type { Context } from 'koa';
import { byContentType } from '../../data/registry.js';
import type { ModelEntry } from '../../core/types.js';
import type { Services, State } from '../../http/views.js';
import { prefixUtilization } from '../../hooks/prefix_utilization.js';
import { barView, listRows, objectTable } from '../object-table.js';
import type { ApiViews } from '../api-views.js';
import { may } from '../page.js';
import type { Panel } from '../panel.js';

const lengthOf = (prefix: unknown) => Number(String(prefix).split('/')[1] ?? 0);

export async function parentPrefixes(ctx: Context, services: Services, api: ApiViews, _entry: ModelEntry, ip: Record<string, any>): Promise<Panel | null> {
  const prefixes = byContentType.get('ipam.prefix');
  const host = String(ip.address ?? '').split('/')[0];
  if (!prefixes || !host || !may(ctx, prefixes, 'view', services)) return null;
  const rows = (await listRows(ctx, api, prefixes, new URLSearchParams({ contains: host, vrf_id: String(ip.vrf?.id ?? 'null') })))
    .sort((a, b) => lengthOf(a.prefix) - lengthOf(b.prefix));
  const db = (ctx.state as State).readDb ?? services.db;
  const utilization = await prefixUtilization(db, rows.map((r) => Number(r.id)));
  return {
    title: 'Parent prefixes',
    html: objectTable(prefixes, 'Parent prefixes', ['prefix', 'status', 'site', 'tenant'], rows, {
      bars: { label: 'Utilization', values: rows.map((r) => barView(utilization.get(Number(r.id)) ?? 0)) },
      empty: 'No prefix of its VRF contains this address.',
    }),
    table: true,
  };
}
