/** The model whose objects have an elevation drawing (racks), and the page of many of them side by side. */
import { modelList } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';

export const RACK_ELEVATIONS = '/dcim/rack-elevations/';
export const ELEVATION_HOOK = 'rack_elevation';

export function elevatedModel(): ModelEntry | undefined {
  return modelList.find((m) => m.routes.extra.some((e) => e.hook === ELEVATION_HOOK && !e.app));
}
