/**
 * Module bays: `installed_module`, the module sitting in the bay (one query per page).
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';

export const moduleBay: ModelHooks = {
  computed: {
    async installed_module(rows, { db, refer }) {
      const ids = rows.map((r) => Number(r.id));
      const modules = await db(model('Module').definition.table).select('id', 'module_bay_id').whereIn('module_bay_id', ids);
      return new Map(modules.map((m) => [Number(m.module_bay_id), refer('Module', m.id)]));
    },
  },
};
