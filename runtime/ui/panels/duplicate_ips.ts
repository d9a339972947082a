/**
 * An IP address's duplicates: the other IP addresses with the same address (any mask) in the same
 * VRF, each with its status and assignment, as a warning panel. No panel when there are none.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../../core/types.js';
import type { Services } from '../../http/views.js';
import { listRows, objectTable } from '../object-table.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';

export async function duplicateIps(ctx: Context, _services: Services, api: ApiViews, entry: ModelEntry, ip: Record<string, any>): Promise<Panel | null> {
  const host = String(ip.address ?? '').split('/')[0];
  if (!host) return null;
  const rows = await listRows(ctx, api, entry, new URLSearchParams({ address: host, vrf_id: String(ip.vrf?.id ?? 'null'), id__n: String(ip.id) }));
  if (!rows.length) return null;
  return {
    title: `Duplicate IP addresses (${rows.length})`,
    tone: 'warning',
    html: objectTable(entry, 'Duplicate IP addresses', ['address', 'vrf', 'status', 'role', 'assigned_object', 'tenant'], rows),
    table: true,
  };
}
