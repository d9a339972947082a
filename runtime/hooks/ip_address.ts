/** IP addresses: no duplicate host within a VRF (or the global table). */
import type { ModelHooks } from '../data/registry.js';
import { refuseDuplicates } from './ip_uniqueness.js';

export const ipAddress: ModelHooks = {
  async prepareMany(items, { db }) {
    await refuseDuplicates(db, items, { table: 'ipam_ipaddress', column: 'address_host', noun: 'IP address', text: (row) => String(row.address) });
  },
};
