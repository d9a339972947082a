/** An IP range's utilization: the share of its addresses that IP addresses of its VRF take (100% when marked utilized). */
import type { Context } from 'koa';
import { parseNetwork, toBigInt } from '../../core/ipnet.js';
import type { ModelEntry } from '../../core/types.js';
import type { Services, State } from '../../http/views.js';
import { rangeUtilization as assigned } from '../../hooks/prefix_utilization.js';
import { utilizationPanel } from '../object-table.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';

export async function rangeUtilization(ctx: Context, services: Services, _api: ApiViews, _entry: ModelEntry, range: Record<string, any>): Promise<Panel | null> {
  const start = parseNetwork(String(range.start_address ?? ''));
  const end = parseNetwork(String(range.end_address ?? ''));
  if (!start || !end) return null;
  const db = (ctx.state as State).readDb ?? services.db;
  const value = await assigned(db, { family: start.family, first: toBigInt(start.host), last: toBigInt(end.host), vrfId: range.vrf?.id ?? null, markUtilized: !!range.mark_utilized });
  return utilizationPanel(value, range.mark_utilized ? 'marked utilized' : 'of its addresses are assigned');
}
