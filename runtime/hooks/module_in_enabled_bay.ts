/** NetBox 4.6's disabled module bays: a module bay whose `enabled` is false takes no new module. */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { setsAnother, valueOf } from './merged.js';

/** A module's bay: disabled, it takes no module. One query for the bays of all elements. */
export const moduleInEnabledBay: ModelHooks = {
  async prepareMany(items, { db }) {
    const moving = items.filter((i) => setsAnother(i, 'module_bay_id'));
    if (!moving.length) return;
    const bays = new Set((await db(model('ModuleBay').definition.table).whereIn('id', [...new Set(moving.map((i) => Number(valueOf(i, 'module_bay_id'))))])
      .where('enabled', false).pluck('id')).map(Number));
    for (const item of moving) if (bays.has(Number(valueOf(item, 'module_bay_id')))) item.errors.add('module_bay', 'Cannot install a module in a disabled module bay.');
  },
};
