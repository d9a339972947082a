/**
 * Component templates of device types and module types: each belongs to exactly one of the two.
 */
import type { ModelHooks } from '../data/registry.js';

export const componentTemplate: ModelHooks = {
  prepare(item) {
    const pick = (column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const deviceType = pick('device_type_id');
    const moduleType = pick('module_type_id');
    if (deviceType != null && moduleType != null) {
      item.errors.add('non_field_errors', 'A component template cannot be associated with both a device type (device_type) and a module type (module_type).');
    } else if (deviceType == null && moduleType == null) {
      item.errors.add('non_field_errors', 'A component template must be associated with either a device type (device_type) or a module type (module_type).');
    }
  },
};
