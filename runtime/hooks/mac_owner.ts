/**
 * Interfaces and VM interfaces own MAC address objects (NetBox 4.2), and their `mac_address` is their
 * primary MAC's value, read by every version from the column kept here. Two ways to write it:
 * - `primary_mac_address` (4.x): a MAC address object assigned to this interface or to none; the
 *   column takes its value.
 * - `mac_address` (as 3.7 writes it): the interface's primary MAC object takes the value (created,
 *   assigned to the interface, when it has none, or one of its own with that value becomes primary);
 *   null removes the primary MAC object.
 * Existing data (interfaces with a MAC address and no object, an upgrade or a 3.7 import) gets its
 * objects at start-up and after an import.
 */
import type { Knex } from 'knex';
import type { HookContext, ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { createRows, deleteRows, updateRows } from '../data/side-writes.js';
import type { ModelEntry } from '../core/types.js';
import { isSet } from './merged.js';

const macs = () => model('MACAddress');
const owners = () => Object.values(macs().definition.fields.assigned_object.types!).map((name) => model(name));

async function checkPrimary(db: Knex, item: WriteItem, entry: ModelEntry): Promise<void> {
  const id = item.values.primary_mac_address_id;
  if (!isSet(id)) { item.values.mac_address = null; return; }
  const mac = await db(macs().definition.table).where('id', id).first();
  if (!mac) return;
  const mine = mac.assigned_object_type === entry.definition.contentType && item.id !== null && Number(mac.assigned_object_id) === item.id;
  if (isSet(mac.assigned_object_id) && !mine) {
    item.errors.add('primary_mac_address', `MAC address ${mac.mac_address} is assigned to a different object (${mac.assigned_object_type} ${mac.assigned_object_id}).`);
    return;
  }
  item.values.mac_address = mac.mac_address;
}

/** The primary MAC objects that the `mac_address` written to these interfaces asks for. */
async function followWrittenValues(db: Knex, rows: Row[], items: WriteItem[], ctx: HookContext, entry: ModelEntry): Promise<boolean> {
  const type = entry.definition.contentType;
  const target = { db, request: ctx.request };
  // (a version where mac_address is read-only never gives it)
  const written = items.filter((i) => i.given?.has('mac_address') && !i.given.has('primary_mac_address') && i.id !== null);
  if (!written.length) return false;
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const own: Row[] = await db(macs().definition.table).where('assigned_object_type', type).whereIn('assigned_object_id', written.map((i) => i.id!));
  const primaries: { id: number; values: Row }[] = [];
  const changes: { id: number; values: Row }[] = [];
  const dropped: number[] = [];
  const now = new Date().toISOString();
  for (const item of written) {
    const row = byId.get(item.id!) ?? {};
    const value = row.mac_address ?? null;
    const primary = isSet(row.primary_mac_address_id) ? Number(row.primary_mac_address_id) : null;
    const current = own.find((m) => Number(m.id) === primary);
    if (value === null) {
      if (primary !== null) { primaries.push({ id: item.id!, values: { primary_mac_address_id: null } }); dropped.push(primary); }
    } else if (current) {
      if (current.mac_address !== value) changes.push({ id: primary!, values: { mac_address: value } });
    } else {
      const same = own.find((m) => Number(m.assigned_object_id) === item.id && m.mac_address === value);
      const [made] = same ? [Number(same.id)] : await createRows(target, macs(), [{
        mac_address: value, assigned_object_type: type, assigned_object_id: item.id, description: '', comments: '',
        custom_field_data: '{}', created: now, last_updated: now,
      }]);
      primaries.push({ id: item.id!, values: { primary_mac_address_id: made } });
    }
  }
  for (const p of primaries) await db(entry.definition.table).where('id', p.id).update(p.values);
  await updateRows(target, macs(), changes);
  await deleteRows(target, macs(), dropped);
  return primaries.length > 0;
}

/** MAC address objects for interfaces that have a MAC address and none (set-wise, unrecorded, as a migration). */
export async function objectsForStoredValues(db: Knex): Promise<void> {
  const table = macs().definition.table;
  for (const owner of owners()) {
    const t = owner.definition.table;
    const type = owner.definition.contentType;
    const orphans = db(t).whereNotNull('mac_address').whereNull('primary_mac_address_id');
    if (!(await orphans.clone().first('id'))) continue;
    await db.transaction(async (trx) => {
      const now = new Date().toISOString();
      await trx(table).insert(trx(t).whereNotNull('mac_address').whereNull('primary_mac_address_id').whereNotExists(
        trx(table).where('assigned_object_type', type).whereRaw(`${table}.assigned_object_id = ${t}.id`).whereRaw(`${table}.mac_address = ${t}.mac_address`),
      ).select(trx.raw('mac_address, ? as assigned_object_type, id as assigned_object_id, ? as description, ? as comments, ? as custom_field_data, ? as created, ? as last_updated', [type, '', '', '{}', now, now])));
      await trx(t).whereNotNull('mac_address').whereNull('primary_mac_address_id').update({
        primary_mac_address_id: trx(table).min('id').where('assigned_object_type', type).whereRaw(`${table}.assigned_object_id = ${t}.id`).whereRaw(`${table}.mac_address = ${t}.mac_address`),
      });
    });
  }
}

export const macOwner: ModelHooks = {
  async prepare(item, { db, entry }) {
    if ('primary_mac_address' in item.input) await checkPrimary(db, item, entry!);
  },
  async afterWrite(rows, ctx) {
    return followWrittenValues(ctx.db, rows, ctx.items, ctx, ctx.entry!);
  },
  startup: ({ db }) => objectsForStoredValues(db),
  afterImport: (db) => objectsForStoredValues(db),
};
