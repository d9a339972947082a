/**
 * Device components (ports, outlets, bays, …): a component stays on the device it was created on.
 */
import type { ModelHooks } from '../data/registry.js';

export const component: ModelHooks = {
  prepare(item) {
    if (item.existing && item.values.device_id !== undefined && item.values.device_id !== null && Number(item.values.device_id) !== Number(item.existing.device_id)) {
      item.errors.add('device', 'Components cannot be moved to a different device.');
    }
  },
};
