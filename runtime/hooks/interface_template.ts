/**
 * Interface templates: a template cannot be bridged to itself.
 */
import type { ModelHooks } from '../data/registry.js';

export const interfaceTemplate: ModelHooks = {
  prepare(item) {
    const bridge = 'bridge_id' in item.values ? item.values.bridge_id : item.existing?.bridge_id;
    if (bridge != null && item.id !== null && Number(bridge) === item.id) item.errors.add('bridge', 'An interface cannot be bridged to itself.');
  },
};
