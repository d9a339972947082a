/**
 * NetBox 4.6's disabled device bays: a bay whose `enabled` is false takes no new device (one
 * already in it stays, and the bay may be saved with it). Modules: module_in_enabled_bay.ts.
 */
import type { ModelHooks, WriteItem } from '../data/registry.js';

export const current = (item: WriteItem, column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
/** Is `column` set by this write to a value other than the stored one? */
export const changedTo = (item: WriteItem, column: string) => {
  const value = current(item, column);
  return value != null && (!item.existing || Number(item.existing[column]) !== Number(value));
};
const disabled = (value: unknown) => value === false || value === 0 || value === '0';

/** A device bay's own `enabled` against the device installed in it. */
export const enabledBay: ModelHooks = {
  async prepare(item) {
    if (changedTo(item, 'installed_device_id') && disabled(current(item, 'enabled'))) {
      item.errors.add('installed_device', 'Cannot install a device in a disabled device bay.');
    }
  },
};
