/**
 * Where a device sits (its rack and location are in its site: `same: site` in the schema): the rack
 * is in its location; a rack
 * face or position needs a rack; positions come in half units, fit inside the rack and overlap no
 * other device on the same face (a full-depth device blocks both faces); 0U and child devices take
 * no position; the platform's manufacturer is the device type's; a cluster with a site is the
 * device's site; a virtual-chassis member has a position. New devices take their type's airflow
 * and default platform, and the rack's location. Checked for all elements of a request at once.
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';
import { loadRacks, obstacle } from './rack_space.js';

type Item = Parameters<NonNullable<ModelHooks['prepareMany']>>[0][number];

const tableOf = (name: string) => model(name).definition.table;

async function byId(db: Parameters<NonNullable<ModelHooks['prepareMany']>>[1]['db'], name: string, ids: unknown[], columns: string[]): Promise<Map<number, Row>> {
  const list = [...new Set(ids.filter((v) => v != null).map(Number))];
  if (!list.length) return new Map();
  return new Map((await db(tableOf(name)).select('id', ...columns).whereIn('id', list)).map((r: Row) => [Number(r.id), r]));
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

export const devicePlacement: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: Item, column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const types = await byId(db, 'DeviceType', items.map((i) => pick(i, 'device_type_id')), ['model', 'manufacturer_id', 'u_height', 'is_full_depth', 'subdevice_role', 'airflow', 'default_platform_id']);
    const racks = await loadRacks(db, items.map((i) => pick(i, 'rack_id')).filter((v) => v != null).map(Number));
    const locations = await byId(db, 'Location', items.map((i) => pick(i, 'location_id')), ['name']);
    const platforms = await byId(db, 'Platform', items.map((i) => pick(i, 'platform_id')), ['name', 'manufacturer_id']);
    const clusters = await byId(db, 'Cluster', items.map((i) => pick(i, 'cluster_id')), ['name', 'site_id']);
    const manufacturers = await byId(db, 'Manufacturer', [...types.values(), ...platforms.values()].map((r) => r.manufacturer_id), ['name']);

    for (const item of items) {
      const type = types.get(Number(pick(item, 'device_type_id')));
      if (!type) continue;
      const add = (field: string, message: string) => item.errors.add(field, message);
      const space = racks.get(Number(pick(item, 'rack_id')));
      // A new device (or one moved to another rack) without a location takes the rack's.
      if (space?.rack.location_id != null && !('location' in item.input) && (!item.existing || 'rack_id' in item.values)) item.values.location_id = space.rack.location_id;
      if (!item.existing) {
        if (!pick(item, 'airflow') && type.airflow) item.values.airflow = type.airflow;
        if (pick(item, 'platform_id') == null && type.default_platform_id != null) item.values.platform_id = type.default_platform_id;
      }
      const site = Number(pick(item, 'site_id'));
      const location = locations.get(Number(pick(item, 'location_id')));
      if (space && location && space.rack.location_id != null && Number(space.rack.location_id) !== Number(location.id)) add('rack', `Rack ${space.rack.name} does not belong to location ${location.name}.`);
      const face = pick(item, 'face') as string;
      const rawPosition = pick(item, 'position');
      const position = rawPosition == null ? null : Number(rawPosition);
      const height = Number(type.u_height);
      const child = type.subdevice_role === 'child';
      if (face && !space && pick(item, 'rack_id') == null) add('face', 'Cannot select a rack face without assigning a rack.');
      if (position !== null && pick(item, 'rack_id') == null) add('position', 'Cannot select a rack position without assigning a rack.');
      if (position !== null && Math.round(position * 2) !== position * 2) add('position', 'Position must be in increments of 0.5 rack units.');
      if (position !== null && height === 0) add('position', `A U0 device type (${type.model}) cannot be assigned to a rack position.`);
      if (child && face) add('face', 'Child device types cannot be assigned to a rack face. This is an attribute of the parent device.');
      if (child && position !== null) add('position', 'Child device types cannot be assigned to a rack position. This is an attribute of the parent device.');
      if (space && position !== null && face && height > 0 && item.errors.empty) {
        const mount = { id: item.id, position, face, height, fullDepth: truthy(type.is_full_depth) };
        if (obstacle(space, mount)) add('position', `U${position} is already occupied or does not have sufficient space to accommodate this device type: ${type.model} (${height}U)`);
        // Later elements of the request must not overlap this one either.
        else space.devices = [...space.devices.filter((d) => d.id !== item.id), { ...mount, id: item.id ?? -1 - space.devices.length, name: null }];
      }
      const platform = platforms.get(Number(pick(item, 'platform_id')));
      if (platform?.manufacturer_id != null && Number(platform.manufacturer_id) !== Number(type.manufacturer_id)) {
        add('platform', `The assigned platform is limited to ${manufacturers.get(Number(platform.manufacturer_id))?.name} device types, but this device's type belongs to ${manufacturers.get(Number(type.manufacturer_id))?.name}.`);
      }
      const cluster = clusters.get(Number(pick(item, 'cluster_id')));
      if (cluster?.site_id != null && Number(cluster.site_id) !== site) add('cluster', `The assigned cluster belongs to a different site than the device.`);
      if (pick(item, 'virtual_chassis_id') != null && pick(item, 'vc_position') == null) add('vc_position', 'A device assigned to a virtual chassis must have its position defined.');
    }
  },
};
