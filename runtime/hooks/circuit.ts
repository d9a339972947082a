/**
 * Circuits: a provider account, when set, must be one of the circuit's provider's accounts.
 */
import { model, type ModelHooks } from '../data/registry.js';

export const circuit: ModelHooks = {
  async prepare(item, { db }) {
    if (!('provider_account_id' in item.values) && !('provider_id' in item.values)) return;
    const v = { ...(item.existing ?? {}), ...item.values };
    if (v.provider_account_id === null || v.provider_account_id === undefined) return;
    const account = await db(model('ProviderAccount').definition.table).where('id', v.provider_account_id).first();
    if (account && Number(account.provider_id) !== Number(v.provider_id)) {
      item.errors.add('provider_account', 'This account belongs to another provider than the circuit\'s.');
    }
  },
};
