/**
 * Circuit terminations: each one ends at a termination (a region, site group, site, location or
 * provider network; hooks/cached_scope.ts keeps 3.7's site and provider network from it). A 3.7
 * write names a site or a provider network, exactly one of the two.
 */
import type { ModelHooks } from '../data/registry.js';
import { isSet } from './merged.js';

export const circuitTermination: ModelHooks = {
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    if (isSet(v.site_id) && isSet(v.provider_network_id)) {
      item.errors.add('provider_network', 'A circuit termination attaches to a site or to a provider network, not both.');
    } else if (!isSet(v.termination_type)) {
      // a write naming the generic termination (4.x) is told so without a field, as NetBox's clean() does
      if ('termination_type' in item.input || 'termination_id' in item.input) item.errors.add('__all__', 'A circuit termination must attach to a terminating object.');
      else item.errors.add('site', 'A circuit termination needs a site or a provider network.');
    }
  },
};
