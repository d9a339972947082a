/**
 * The VLANs a site, a device or a virtual machine may use (NetBox's available_at_site,
 * available_on_device, available_on_virtualmachine): global VLANs (no site, and no group or a group
 * without a scope), VLANs of the site, and VLANs of groups scoped to the site, to its region or site
 * group or one of their ancestors, and for a device to its location (or an ancestor) and rack, for a
 * VM to its cluster and cluster group (the VM's site, else its cluster's). All one query.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { idFromText } from '../core/ids.js';
import { model } from '../data/registry.js';

type Ids = Knex.QueryBuilder;
/** a VLAN group scope: its content type and the ids that match */
type Scope = [contentType: string, ids: Ids];

const table = (name: string) => model(name).definition.table;

/** The one object id a filter names (NetBox's single-choice filter; the last value wins, as in Django). */
function oneId(param: string, values: string[]): number {
  const id = idFromText(values[values.length - 1].trim());
  if (id === null) throw errors.badFilter(param, 'Select a valid choice. That choice is not one of the available choices.');
  return id;
}

/** The nodes of a tree model and all their ancestors. */
function withAncestors(db: Knex, tree: string, ids: Ids): Ids {
  return db(`${tree} as a`).select('a.id').whereExists(db(`${tree} as d`).whereRaw('d._path like a._path || ?', ['%']).whereIn('d.id', ids));
}

/** Scopes that reach a site: the site, its region and site group with their ancestors. */
function siteScopes(db: Knex, siteIds: Ids): Scope[] {
  const sites = table('Site');
  return [
    ['dcim.site', siteIds],
    ['dcim.region', withAncestors(db, table('Region'), db(sites).select('region_id').whereIn('id', siteIds))],
    ['dcim.sitegroup', withAncestors(db, table('SiteGroup'), db(sites).select('group_id').whereIn('id', siteIds))],
  ];
}

/** `of`: the object asked about; none, no VLANs (NetBox refuses an unknown id, which a filter here cannot look up first) */
function available(qb: Knex.QueryBuilder, db: Knex, of: Ids, siteIds: Ids, scopes: Scope[]): void {
  const groupTable = table('VLANGroup');
  qb.whereExists(of);
  const groups = db(groupTable).select('id').where((w) => {
    for (const [type, ids] of scopes) w.orWhere((x) => x.where('scope_type', type).whereIn('scope_id', ids));
  });
  qb.where((w) => w
    .whereIn('group_id', groups)
    .orWhereIn('site_id', siteIds)
    // global: no site, and no group or a group scoped to nothing
    .orWhere((x) => x.whereNull('site_id').where((y) => y.whereNull('group_id').orWhereIn('group_id', db(groupTable).select('id').whereNull('scope_id')))));
}

export const vlanAvailabilityFilters = {
  available_at_site(qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) {
    const site = db(table('Site')).select('id').where('id', oneId('available_at_site', values));
    available(qb, db, site.clone(), site, siteScopes(db, site));
  },
  available_on_device(qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) {
    const devices = table('Device');
    const device = oneId('available_on_device', values);
    const of = (column: string) => db(devices).select(column).where('id', device);
    const site = db(table('Site')).select('id').whereIn('id', of('site_id'));
    available(qb, db, db(devices).select('id').where('id', device), site, [
      ...siteScopes(db, site),
      ['dcim.location', withAncestors(db, table('Location'), of('location_id'))],
      ['dcim.rackgroup', db(table('Rack')).select('group_id').whereIn('id', of('rack_id'))],
      ['dcim.rack', of('rack_id')],
    ]);
  },
  available_on_virtualmachine(qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) {
    const vms = table('VirtualMachine');
    const clusters = table('Cluster');
    const vm = oneId('available_on_virtualmachine', values);
    const cluster = db(vms).select('cluster_id').where('id', vm);
    // the VM's own site, else its cluster's
    const site = db(table('Site')).select('id').where((w) => w
      .whereIn('id', db(vms).select('site_id').where('id', vm))
      .orWhereIn('id', db(clusters).select('site_id').whereIn('id', db(vms).select('cluster_id').where('id', vm).whereNull('site_id'))));
    available(qb, db, db(vms).select('id').where('id', vm), site, [
      ...siteScopes(db, site),
      ['virtualization.cluster', cluster],
      ['virtualization.clustergroup', db(clusters).select('group_id').whereIn('id', db(vms).select('cluster_id').where('id', vm))],
    ]);
  },
};
