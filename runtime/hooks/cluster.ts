/**
 * Clusters: a cluster scoped to a site (3.7: placed in it) or to a location must not have host
 * devices elsewhere. Runs after cached_scope, which sets the scope's cached site and location.
 */
import type { ModelHooks } from '../data/registry.js';
import { isSet } from './merged.js';

export const cluster: ModelHooks = {
  async prepare(item, { db }) {
    if (!item.existing || !('site_id' in item.values)) return;
    // 3.7 names the site it wrote, 4.x the scope
    const field = 'site' in item.input ? 'site' : 'scope';
    const location = item.values._location_id;
    const [column, table, value, noun] = isSet(location)
      ? ['location_id', 'dcim_location', location, 'location'] as const
      : ['site_id', 'dcim_site', item.values.site_id, 'site'] as const;
    if (!isSet(value)) return;
    const elsewhere = await db('dcim_device').where('cluster_id', item.id).where((w) => w.whereNot(column, value).orWhereNull(column)).count('id as n').first();
    const count = Number(elsewhere?.n ?? 0);
    if (count) {
      const place = await db(table).select('name').where('id', value).first();
      item.errors.add(field, `${count} devices are hosts of this cluster but are not in ${noun} ${place?.name ?? value}.`);
    }
  },
};
