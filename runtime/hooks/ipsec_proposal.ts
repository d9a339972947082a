/** IPSec proposals: an encryption or an authentication algorithm (or both). */
import type { ModelHooks } from '../data/registry.js';
import { merged } from './merged.js';

export const ipsecProposal: ModelHooks = {
  prepare(item) {
    const row = merged(item);
    if (!row.encryption_algorithm && !row.authentication_algorithm) {
      item.errors.add('non_field_errors', 'Encryption and/or authentication algorithm must be defined');
    }
  },
};
