/**
 * Virtual circuits (NetBox 4.2): a provider account, when set, must be an account of the provider
 * network's provider.
 */
import { model, type ModelHooks } from '../data/registry.js';

export const virtualCircuit: ModelHooks = {
  async prepare(item, { db }) {
    if (!('provider_account_id' in item.values) && !('provider_network_id' in item.values)) return;
    const v = { ...(item.existing ?? {}), ...item.values };
    if (v.provider_account_id == null || v.provider_network_id == null) return;
    const [account, network] = await Promise.all([
      db(model('ProviderAccount').definition.table).where('id', v.provider_account_id).first('provider_id'),
      db(model('ProviderNetwork').definition.table).where('id', v.provider_network_id).first('provider_id'),
    ]);
    if (account && network && Number(account.provider_id) !== Number(network.provider_id)) {
      item.errors.add('provider_account', 'The assigned account must belong to the provider of the assigned network.');
    }
  },
};
