/**
 * Services: attached to exactly one device or virtual machine, and ports are whole numbers from 1
 * to 65535.
 */
import type { ModelHooks } from '../data/registry.js';

export const service: ModelHooks = {
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const parents = [v.device_id, v.virtual_machine_id].filter((x) => x !== null && x !== undefined);
    if (parents.length !== 1) item.errors.add('non_field_errors', 'A service must be assigned to either a device or a virtual machine.');
    if (item.values.ports !== undefined) {
      const ports = JSON.parse(item.values.ports);
      if (!Array.isArray(ports) || !ports.length || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
        item.errors.add('ports', 'Give a list of port numbers from 1 to 65535.');
      }
    }
  },
};
