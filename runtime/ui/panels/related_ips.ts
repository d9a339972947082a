/**
 * An IP address's related addresses: the other addresses of its VRF inside its own network (its
 * address with its mask, e.g. the rest of 10.1.2.0/24 for 10.1.2.3/24), as NetBox's IP address page
 * lists them. The address itself and its duplicates (same address, the duplicates panel) are left out.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../../core/types.js';
import { networkText, parseNetwork } from '../../core/ipnet.js';
import type { Services } from '../../http/views.js';
import { listRows, objectTable } from '../object-table.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';

const LIMIT = 100;
const hostOf = (address: unknown) => String(address ?? '').split('/')[0];

export async function relatedIps(ctx: Context, _services: Services, api: ApiViews, entry: ModelEntry, ip: Record<string, any>): Promise<Panel | null> {
  const network = parseNetwork(String(ip.address ?? ''));
  if (!network) return null;
  const host = hostOf(ip.address);
  const rows = (await listRows(ctx, api, entry, new URLSearchParams({ parent: networkText(network), vrf_id: String(ip.vrf?.id ?? 'null') }), LIMIT + 1))
    .filter((r) => hostOf(r.address) !== host);
  const shown = rows.slice(0, LIMIT);
  return {
    title: `Related IP addresses${rows.length > LIMIT ? ` (first ${LIMIT})` : ''}`,
    html: objectTable(entry, 'Related IP addresses', ['address', 'vrf', 'status', 'role', 'assigned_object', 'tenant'], shown, {
      empty: `No other address of its VRF in ${networkText(network)}.`,
    }),
    table: true,
  };
}
