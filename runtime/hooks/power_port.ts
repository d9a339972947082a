/**
 * Power ports: the allocated draw cannot exceed the maximum draw.
 */
import type { ModelHooks } from '../data/registry.js';

export const powerPort: ModelHooks = {
  prepare(item) {
    const pick = (name: string) => (name in item.values ? item.values[name] : item.existing?.[name]);
    const maximum = pick('maximum_draw');
    const allocated = pick('allocated_draw');
    if (maximum != null && allocated != null && Number(allocated) > Number(maximum)) {
      item.errors.add('allocated_draw', `Allocated draw cannot exceed the maximum draw (${maximum}W).`);
    }
  },
};
