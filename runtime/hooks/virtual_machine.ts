/**
 * Virtual machines: the rendered configuration context and the has_primary_ip filter, shared with
 * devices (see device.ts and config_context.ts). Device-specific write checks are not reused.
 */
import type { ModelHooks } from '../data/registry.js';
import { device } from './device.js';
import { configContextOf } from './config_context.js';

export const virtualMachine: ModelHooks = {
  computed: {
    // the VM's own tags, cluster and site (config contexts naming locations or device types never apply)
    config_context: configContextOf('VirtualMachine'),
  },
  filters: {
    has_primary_ip: device.filters!.has_primary_ip,
  },
};
