/** An aggregate's utilization: the share of its space the prefixes inside it (of every VRF) cover. */
import type { Context } from 'koa';
import { parseNetwork, toBigInt } from '../../core/ipnet.js';
import type { ModelEntry } from '../../core/types.js';
import type { Services, State } from '../../http/views.js';
import { aggregateUtilization as coverage } from '../../hooks/prefix_utilization.js';
import { utilizationPanel } from '../object-table.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';

export async function aggregateUtilization(ctx: Context, services: Services, _api: ApiViews, _entry: ModelEntry, aggregate: Record<string, any>): Promise<Panel | null> {
  const net = parseNetwork(String(aggregate.prefix ?? ''));
  if (!net) return null;
  const db = (ctx.state as State).readDb ?? services.db;
  return utilizationPanel(await coverage(db, net.family, toBigInt(net.first), toBigInt(net.last)), 'of the aggregate is covered by its prefixes');
}
