/**
 * How many objects a filtered list holds, asked once per page request: the tab bar and the
 * related-objects panel both show a device's interfaces, and the second asks the first's answer.
 * Only the count is read (the list view's filters and scope, no page of rows).
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import type { ApiViews } from './api-views.js';
import { callView } from './api-call.js';

const asked = new WeakMap<Context, Map<string, Promise<number>>>();

/** The list's count as the API answers it for this user (0 when the user may not list it). */
export function listCount(ctx: Context, api: ApiViews, other: ModelEntry, filter: URLSearchParams): Promise<number> {
  const key = `${other.definition.name}?${[...filter].map(([k, v]) => `${k}=${v}`).sort().join('&')}`;
  let counts = asked.get(ctx);
  if (!counts) asked.set(ctx, (counts = new Map()));
  let count = counts.get(key);
  if (!count) {
    count = callView(ctx, api.get(other)!.count, { query: filter }).then((result) => (result.ok ? Number(result.body.count) || 0 : 0));
    counts.set(key, count);
  }
  return count;
}
