/**
 * L2VPN terminations by the site or region of what they terminate on (NetBox's filter_site and
 * filter_region): a VLAN's site, an interface's device's site, a VM interface's VM's site. The region
 * is the site's own (no descendants, as NetBox's `site__region__slug__in`).
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { idFromText } from '../core/ids.js';
import { model } from '../data/registry.js';
import type { HookContext } from '../data/registry.js';

const table = (name: string) => model(name).definition.table;

/** Terminations on objects at one of these sites. */
function atSites(qb: Knex.QueryBuilder, db: Knex, sites: Knex.QueryBuilder): void {
  const on = (type: string, ids: Knex.QueryBuilder) => (w: Knex.QueryBuilder) => w.where('assigned_object_type', type).whereIn('assigned_object_id', ids);
  const vlans = db(table('VLAN')).select('id').whereIn('site_id', sites);
  const interfaces = db(table('Interface')).select('id').whereIn('device_id', db(table('Device')).select('id').whereIn('site_id', sites));
  const vmInterfaces = db(table('VMInterface')).select('id').whereIn('virtual_machine_id', db(table('VirtualMachine')).select('id').whereIn('site_id', sites));
  qb.where((w) => w
    .where(on(model('VLAN').definition.contentType, vlans))
    .orWhere(on(model('Interface').definition.contentType, interfaces))
    .orWhere(on(model('VMInterface').definition.contentType, vmInterfaces)));
}

function ids(param: string, values: string[]): number[] {
  return values.map((v) => {
    const id = idFromText(v.trim());
    if (id === null) throw errors.badFilter(param, 'Enter a whole number.');
    return id;
  });
}

type Filter = (qb: Knex.QueryBuilder, values: string[], ctx: HookContext & { table: string }) => void;

export const l2vpnTerminationFilters: Record<string, Filter> = {
  site_id: (qb, values, { db }) => atSites(qb, db, db(table('Site')).select('id').whereIn('id', ids('site_id', values))),
  site: (qb, values, { db }) => atSites(qb, db, db(table('Site')).select('id').whereIn('slug', values)),
  region_id: (qb, values, { db }) => atSites(qb, db, db(table('Site')).select('id').whereIn('region_id', ids('region_id', values))),
  region: (qb, values, { db }) => atSites(qb, db, db(table('Site')).select('id').whereIn('region_id', db(table('Region')).select('id').whereIn('slug', values))),
};
