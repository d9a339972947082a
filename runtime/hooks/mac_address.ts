/**
 * MAC address objects (NetBox 4.2). One that is an interface's primary MAC stays assigned to it
 * (NetBox refuses to unassign or move it); a change of its value is the interface's `mac_address`
 * too, and deleting it clears the interface's primary MAC and MAC address.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';
import { updateRows } from '../data/side-writes.js';
import { parseBoolean } from '../core/query-values.js';
import { isSet } from './merged.js';

const owners = () => Object.values(model('MACAddress').definition.fields.assigned_object.types!).map((name) => model(name));

/** The interfaces whose primary MAC is one of these: [owner model, rows]. */
async function primaryOf(db: Knex, ids: number[]) {
  return Promise.all(owners().map(async (owner) => ({ owner, rows: await db(owner.definition.table).whereIn('primary_mac_address_id', ids).select('id', 'primary_mac_address_id') as Row[] })));
}

export const macAddress: ModelHooks = {
  filters: {
    mac_address_primary(qb, values, { db, table }) {
      const primaries = (w: Knex.QueryBuilder) => {
        for (const owner of owners()) w.orWhereIn(`${table}.id`, db(owner.definition.table).whereNotNull('primary_mac_address_id').select('primary_mac_address_id'));
      };
      if (parseBoolean('primary', values[0])) qb.where(primaries);
      else qb.whereNot(primaries);
    },
  },
  async prepare(item, { db }) {
    if (!item.existing || !('assigned_object_id' in item.values || 'assigned_object_type' in item.values)) return;
    const [was, wasType] = [item.existing.assigned_object_id, item.existing.assigned_object_type];
    const owner = owners().find((o) => o.definition.contentType === wasType);
    if (!owner || !isSet(was)) return;
    const primary = await db(owner.definition.table).where({ id: was, primary_mac_address_id: item.id }).first('id');
    if (!primary) return;
    const after = (column: string) => (column in item.values ? item.values[column] : item.existing![column]);
    const now = after('assigned_object_id');
    const nowType = after('assigned_object_type');
    if (!isSet(now)) item.errors.add('assigned_object', 'Cannot unassign MAC Address while it is designated as the primary MAC for an object');
    else if (Number(now) !== Number(was) || nowType !== wasType) item.errors.add('assigned_object', 'Cannot reassign MAC Address while it is designated as the primary MAC for an object');
  },
  async afterWrite(rows, { db, request }) {
    const values = new Map(rows.map((r) => [Number(r.id), r.mac_address]));
    for (const { owner, rows: found } of await primaryOf(db, [...values.keys()])) {
      await updateRows({ db, request }, owner, found.map((r) => ({ id: Number(r.id), values: { mac_address: values.get(Number(r.primary_mac_address_id)) } })));
    }
    return false;
  },
  async beforeDelete(ids, { db, request, closure }) {
    for (const { owner, rows: found } of await primaryOf(db, ids)) {
      const staying = found.filter((r) => !closure.get(owner.definition.name)?.has(Number(r.id)));
      await updateRows({ db, request }, owner, staying.map((r) => ({ id: Number(r.id), values: { mac_address: null, primary_mac_address_id: null } })));
    }
  },
};
