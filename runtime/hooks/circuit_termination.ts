/**
 * Circuit terminations: each one ends at a site or in a provider network, exactly one of the two.
 */
import type { ModelHooks } from '../data/registry.js';

const isSet = (v: unknown) => v !== null && v !== undefined;

export const circuitTermination: ModelHooks = {
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const site = isSet(v.site_id);
    const network = isSet(v.provider_network_id);
    if (!site && !network) item.errors.add('site', 'A circuit termination needs a site or a provider network.');
    else if (site && network) item.errors.add('provider_network', 'A circuit termination attaches to a site or to a provider network, not both.');
  },
};
