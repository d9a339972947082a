/**
 * Platforms: NetBox's `available_for_device_type` filter, the platforms a device of that type may
 * run (those of the type's manufacturer, and those of no manufacturer).
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { errors } from '../core/errors.js';

export const platform: ModelHooks = {
  filters: {
    available_for_device_type(qb, values, { db }) {
      const ids = values.map((v) => {
        if (!/^\d+$/.test(v)) throw errors.badFilter('available_for_device_type', 'Enter a whole number.');
        return Number(v);
      });
      const makers = db(model('DeviceType').definition.table).select('manufacturer_id').whereIn('id', ids);
      qb.where((w) => w.whereNull('manufacturer_id').orWhereIn('manufacturer_id', makers));
    },
  },
};
