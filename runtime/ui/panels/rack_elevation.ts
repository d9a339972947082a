/**
 * A rack's front and rear elevations on its page: the API's own drawing
 * (`racks/{id}/elevation/?render=svg`), inline, each device a linked box with its name.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../../core/types.js';
import { actionView } from '../../http/actions.js';
import type { Services } from '../../http/views.js';
import { callView, type ViewFn } from '../api-call.js';
import { renderTemplate } from '../render.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';

const views = new WeakMap<ModelEntry, ViewFn>();

function elevationView(entry: ModelEntry, services: Services): ViewFn | null {
  if (!views.has(entry)) {
    const extra = entry.routes.extra.find((e) => e.hook === 'rack_elevation');
    if (!extra) return null;
    views.set(entry, actionView(entry, extra, services));
  }
  return views.get(entry)!;
}

export async function rackElevation(ctx: Context, services: Services, _api: ApiViews, entry: ModelEntry, object: Record<string, any>): Promise<Panel | null> {
  const view = elevationView(entry, services);
  if (!view) return null;
  const faces = [];
  for (const face of ['front', 'rear']) {
    const result = await callView(ctx, view, { params: { id: String(object.id) }, query: new URLSearchParams({ face, render: 'svg', unit_width: '230', unit_height: '22' }) });
    if (result.ok) faces.push({ face: face === 'front' ? 'Front' : 'Rear', svg: String(result.body).replace(/https?:\/\/[^/"]+\/dcim\//g, '/dcim/') });
  }
  return { title: 'Elevations', html: renderTemplate('rack-elevation', { faces }), wide: true };
}
