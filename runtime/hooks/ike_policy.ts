/** IKE policies: IKEv1 needs a mode, IKEv2 takes none. */
import type { ModelHooks } from '../data/registry.js';
import { merged } from './merged.js';

export const ikePolicy: ModelHooks = {
  prepare(item) {
    const row = merged(item);
    const version = Number(row.version);
    if (version === 1 && !row.mode) item.errors.add('non_field_errors', 'Mode is required for selected IKE version');
    if (version === 2 && row.mode) item.errors.add('non_field_errors', 'Mode cannot be used for selected IKE version');
  },
};
