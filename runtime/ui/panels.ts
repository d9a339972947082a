/**
 * Extra panels of an object's page that the schema names (`ui.panels`, runtime/ui/panels/<name>.ts):
 * what a model's page shows beyond its fields and tabs (a rack's elevations). Each renders a
 * template of its own from values it reads through the API's views.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import type { Services } from '../http/views.js';
import type { ApiViews } from './api-views.js';
import { panels } from './panels/index.js';
import type { Panel } from './panel.js';

export async function renderPanels(ctx: Context, services: Services, api: ApiViews, entry: ModelEntry, object: Record<string, any>): Promise<Panel[]> {
  const out: Panel[] = [];
  for (const name of entry.definition.ui?.panels ?? []) {
    const panel = await panels[name]?.(ctx, services, api, entry, object);
    if (panel) out.push(panel);
  }
  return out;
}
