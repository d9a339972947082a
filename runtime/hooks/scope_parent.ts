/**
 * Sites and locations above objects with a cached scope (hooks/cached_scope.ts): a site that changes
 * region or group, a location that changes site, updates the caches of the objects scoped to it or
 * below it, as NetBox 4.4 and later keep them.
 */
import type { ModelHooks } from '../data/registry.js';
import { ANCESTRY, refreshBelow } from './cached_scope.js';

export const scopeParent: ModelHooks = {
  async afterWrite(_rows, { db, items, entry }) {
    const name = entry!.definition.name;
    const watched = (ANCESTRY[name] ?? []).map((r) => entry!.definition.fields[r].columns[0]);
    const changed = items.filter((i) => i.existing && i.id !== null && watched.some((c) => c in i.values && String(i.values[c] ?? '') !== String(i.existing![c] ?? ''))).map((i) => i.id!);
    if (changed.length) await refreshBelow(db, name, changed);
    return false;
  },
};
