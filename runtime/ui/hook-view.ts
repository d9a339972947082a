/**
 * A model's extra API actions (available-prefixes, trace, paths) called from a page: the action's
 * view, built once per model and hook, run in process like the generic views (runtime/ui/api-call.ts).
 */
import type { ModelEntry } from '../core/types.js';
import { actionView } from '../http/actions.js';
import type { Services } from '../http/views.js';
import { callView, type ViewFn, type ViewResult } from './api-call.js';
import type { Context } from 'koa';

const views = new Map<string, ViewFn | null>();

/** The view of a model's object action served by `hook`, or null when the model has none. */
export function hookView(entry: ModelEntry, hook: string, services: Services): ViewFn | null {
  const key = `${entry.definition.name}:${hook}`;
  if (!views.has(key)) {
    const extra = entry.routes.extra.find((e) => e.hook === hook && !e.app);
    views.set(key, extra ? actionView(entry, extra, services) : null);
  }
  return views.get(key)!;
}

/** GET of an object's action (`/api/ipam/prefixes/<id>/available-prefixes/`); null when the model has no such action. */
export async function getAction(ctx: Context, services: Services, entry: ModelEntry, hook: string, id: number, query?: URLSearchParams): Promise<ViewResult | null> {
  const view = hookView(entry, hook, services);
  if (!view) return null;
  const extra = entry.routes.extra.find((e) => e.hook === hook && !e.app)!;
  return callView(ctx, view, { params: { id: String(id) }, query, path: extra.path.replace(':id', String(id)) });
}
