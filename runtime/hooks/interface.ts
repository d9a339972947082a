/**
 * Interfaces: the kind filter (physical, virtual, wireless), vlan_id (untagged or tagged VLAN), and
 * virtual_chassis_member filters (a device's interfaces with its chassis peers'), and NetBox's rules. A parent (virtual interfaces only), bridge or LAG is on the same device or another
 * member of its virtual chassis; PoE only on physical interfaces, and a PoE type needs a PoE mode;
 * wireless attributes only on wireless interfaces (a channel fills its frequency and width); VLANs are
 * global or in the device's site; a blank mode drops the untagged VLAN, any mode but tagged the tagged
 * VLANs (unless the same request sets them).
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row } from '../data/registry.js';
import { choiceSet, model } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';

const VIRTUAL = ['virtual', 'bridge', 'lag'];

function wirelessTypes(): string[] {
  return choiceSet('interface-type').choices.filter((c) => c.group === 'Wireless').map((c) => String(c.value));
}

type Item = Parameters<NonNullable<ModelHooks['prepareMany']>>[0][number];
type Db = Parameters<NonNullable<ModelHooks['prepareMany']>>[1]['db'];

async function rowsById(db: Db, table: string, ids: unknown[], columns: string[]): Promise<Map<number, Row>> {
  const list = [...new Set(ids.filter((v) => v != null).map(Number))];
  return new Map(list.length ? (await db(table).select('id', ...columns).whereIn('id', list)).map((r: Row) => [Number(r.id), r]) : []);
}

/** Frequency and width a channel value (`5g-36-5180-20`) stands for. */
function channelAttributes(channel: string): { frequency: number; width: number } | null {
  const m = /^[\d.]+g-\d+-(\d+)-(\d+)$/.exec(channel);
  return m ? { frequency: Number(m[1]), width: Number(m[2]) } : null;
}

/** Interfaces of the devices whose `column` is one of `values`, and the non-management ones of their chassis peers. */
function vcMembers(qb: Knex.QueryBuilder, db: Db, table: string, column: 'id' | 'name', values: (string | number)[]): void {
  const devices = model('Device').definition.table;
  const chosen = db(devices).select('id').whereIn(column, values);
  const chassis = db(devices).select('virtual_chassis_id').whereIn(column, values).whereNotNull('virtual_chassis_id');
  qb.where((w) => w.whereIn(`${table}.device_id`, chosen)
    .orWhere((peer) => peer.where(`${table}.mgmt_only`, false).whereIn(`${table}.device_id`, db(devices).select('id').whereIn('virtual_chassis_id', chassis))));
}

/**
 * `?vlan_id=` / `?vlan=<vid>`: interfaces carrying the VLAN, untagged or tagged (NetBox's filter_vlan_id
 * and filter_vlan); shared by VM interfaces.
 */
export function vlanFilter(by: 'id' | 'vid') {
  return (qb: Knex.QueryBuilder, values: string[], { db, entry }: { db: Knex; entry?: ModelEntry }) => {
    const numbers = values.filter((v) => /^\d+$/.test(v)).map(Number);
    const vlans = by === 'id' ? numbers : db(model('VLAN').definition.table).select('id').whereIn('vid', numbers);
    const through = entry!.definition.fields.tagged_vlans.through!;
    qb.where((w) => w.whereIn('untagged_vlan_id', vlans as never).orWhereIn('id', db(through).select('from_id').whereIn('to_id', vlans as never)));
  };
}

export const interfaceHooks: ModelHooks = {
  filters: {
    interface_kind(qb, values) {
      const kind = values[0];
      if (kind === 'virtual') qb.whereIn('type', VIRTUAL);
      else if (kind === 'wireless') qb.whereIn('type', wirelessTypes());
      else if (kind === 'physical') qb.whereNotIn('type', [...VIRTUAL, ...wirelessTypes()]);
      else qb.whereRaw('1 = 0');
    },
    // NetBox 3.7's virtual_chassis_member(_id): the device's own interfaces and the non-management
    // interfaces of every member of its virtual chassis (master or not: vc_interfaces(if_master=False)).
    interface_vc_member_id(qb, values, { db, table }) {
      vcMembers(qb, db, table, 'id', values.filter((v) => /^\d+$/.test(v)).map(Number));
    },
    interface_vc_member(qb, values, { db, table }) {
      vcMembers(qb, db, table, 'name', values);
    },
    interface_vlan_id: vlanFilter('id'),
    interface_vlan: vlanFilter('vid'),
  },
  prepare(item) {
    const pick = (column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const type = pick('type') as string;
    const virtual = VIRTUAL.includes(type);
    const wireless = wirelessTypes().includes(type);
    const self = (column: string) => pick(column) != null && item.id !== null && Number(pick(column)) === item.id;
    if (self('parent_id')) item.errors.add('parent', 'An interface cannot be its own parent.');
    if (self('bridge_id')) item.errors.add('bridge', 'An interface cannot be bridged to itself.');
    if (self('lag_id')) item.errors.add('lag', 'A LAG interface cannot be its own parent.');
    if (pick('parent_id') != null && type !== 'virtual') item.errors.add('parent', 'Only virtual interfaces may be assigned to a parent interface.');
    if (type === 'virtual' && pick('lag_id') != null) item.errors.add('lag', 'Virtual interfaces cannot have a parent LAG interface.');
    if (virtual && item.values.mark_connected === true) item.errors.add('mark_connected', `${type} interfaces cannot be marked as connected.`);
    if (virtual && pick('poe_mode')) item.errors.add('poe_mode', 'Virtual interfaces cannot have a PoE mode.');
    if (virtual && pick('poe_type')) item.errors.add('poe_type', 'Virtual interfaces cannot have a PoE type.');
    if (pick('poe_type') && !pick('poe_mode')) item.errors.add('poe_type', 'Must specify PoE mode when designating a PoE type.');
    const channel = pick('rf_channel') as string;
    const attributes = channel ? channelAttributes(channel) : null;
    for (const [column, label] of [['rf_role', 'Wireless role'], ['rf_channel', 'Channel'], ['rf_channel_frequency', 'Channel frequency'], ['rf_channel_width', 'Channel width']] as const) {
      const value = pick(column);
      if (value != null && value !== '' && !wireless) item.errors.add(column, `${label} may be set only on wireless interfaces.`);
    }
    if (attributes && wireless) {
      for (const [column, wanted, label] of [['rf_channel_frequency', attributes.frequency, 'frequency'], ['rf_channel_width', attributes.width, 'width']] as const) {
        if (column in item.input && item.values[column] != null && Number(item.values[column]) !== wanted) item.errors.add(column, `Cannot specify custom ${label} with channel selected.`);
        else item.values[column] = wanted;
      }
    }
    if (!pick('mode')) item.values.untagged_vlan_id = null;
    if (item.existing && pick('mode') !== 'tagged' && !item.m2m?.tagged_vlans) item.m2m = { ...(item.m2m ?? {}), tagged_vlans: [] };
  },
  async prepareMany(items, { db }) {
    const pick = (item: Item, column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const interfaces = await rowsById(db, model('Interface').definition.table, items.flatMap((i) => ['parent_id', 'bridge_id', 'lag_id'].map((c) => pick(i, c))), ['name', 'device_id']);
    const devices = await rowsById(db, model('Device').definition.table, [...items.map((i) => pick(i, 'device_id')), ...[...interfaces.values()].map((r) => r.device_id)], ['name', 'site_id', 'virtual_chassis_id']);
    const vlans = await rowsById(db, model('VLAN').definition.table, items.flatMap((i) => [pick(i, 'untagged_vlan_id'), ...(i.m2m?.tagged_vlans ?? [])]), ['name', 'vid', 'site_id']);
    for (const item of items) {
      const device = devices.get(Number(pick(item, 'device_id')));
      if (!device) continue;
      for (const [column, field, what] of [['parent_id', 'parent', 'parent interface'], ['bridge_id', 'bridge', 'bridge interface'], ['lag_id', 'lag', 'LAG interface']] as const) {
        const other = interfaces.get(Number(pick(item, column)));
        if (!other || Number(other.device_id) === Number(device.id)) continue;
        const otherDevice = devices.get(Number(other.device_id));
        if (device.virtual_chassis_id == null) item.errors.add(field, `The selected ${what} (${other.name}) belongs to a different device (${otherDevice?.name ?? other.device_id}).`);
        else if (Number(otherDevice?.virtual_chassis_id) !== Number(device.virtual_chassis_id)) item.errors.add(field, `The selected ${what} (${other.name}) belongs to ${otherDevice?.name ?? other.device_id}, which is not part of the device's virtual chassis.`);
      }
      const outside = (vlan: Row | undefined) => vlan && vlan.site_id != null && Number(vlan.site_id) !== Number(device.site_id);
      const untagged = vlans.get(Number(pick(item, 'untagged_vlan_id')));
      if (outside(untagged)) item.errors.add('untagged_vlan', `The untagged VLAN (${untagged!.name}) must belong to the same site as the interface's parent device, or it must be global.`);
      for (const id of item.m2m?.tagged_vlans ?? []) {
        const vlan = vlans.get(Number(id));
        if (outside(vlan)) item.errors.add('tagged_vlans', `VLAN ${vlan!.name} (${vlan!.vid}) must belong to the same site as the interface's parent device, or it must be global.`);
      }
    }
  },
};
