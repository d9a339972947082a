/** Clusters: a cluster placed in a site must not have host devices in another site. */
import type { ModelHooks } from '../data/registry.js';
import { isSet } from './merged.js';

export const cluster: ModelHooks = {
  async prepare(item, { db }) {
    if (!item.existing || !('site_id' in item.values) || !isSet(item.values.site_id)) return;
    const elsewhere = await db('dcim_device').where('cluster_id', item.id).where((w) => w.whereNot('site_id', item.values.site_id).orWhereNull('site_id')).count('id as n').first();
    const count = Number(elsewhere?.n ?? 0);
    if (count) {
      const site = await db('dcim_site').select('name').where('id', item.values.site_id).first();
      item.errors.add('site', `${count} devices are hosts of this cluster but are not in site ${site?.name ?? item.values.site_id}.`);
    }
  },
};
