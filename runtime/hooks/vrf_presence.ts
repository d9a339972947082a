/**
 * NetBox's present_in_vrf / present_in_vrf_id on prefixes, IP ranges and IP addresses: the objects in
 * that VRF, and those in any VRF that exports a route target the VRF imports (their routes appear in
 * it). One VRF, by rd or by id; an unknown one matches nothing.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { idFromText } from '../core/ids.js';
import { model } from '../data/registry.js';

function presentIn(qb: Knex.QueryBuilder, db: Knex, vrf: Knex.QueryBuilder): void {
  const fields = model('VRF').definition.fields;
  const imported = db(fields.import_targets.through!).select('to_id').whereIn('from_id', vrf);
  const exporters = db(fields.export_targets.through!).select('from_id').whereIn('to_id', imported);
  qb.where((w) => w.whereIn('vrf_id', vrf).orWhereIn('vrf_id', exporters));
}

/** The last value, as Django's single-value filters take it. */
const last = (values: string[]) => values[values.length - 1].trim();

export const vrfPresenceFilters = {
  present_in_vrf_id(qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) {
    const id = idFromText(last(values));
    if (id === null) throw errors.badFilter('present_in_vrf_id', 'Select a valid choice. That choice is not one of the available choices.');
    presentIn(qb, db, db(model('VRF').definition.table).select('id').where('id', id));
  },
  present_in_vrf(qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) {
    presentIn(qb, db, db(model('VRF').definition.table).select('id').where('rd', last(values)));
  },
};
