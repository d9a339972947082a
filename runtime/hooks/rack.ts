/**
 * Racks (the location is in the rack's site: `same: site` in the schema): dimensions and weights
 * need their unit; the rack must stay tall enough (and start low enough) for the devices mounted in it. Also the elevation
 * (`racks/{id}/elevation/`, rack_elevation.ts). A rack of a rack type (4.6) takes the type's physical fields
 * (hooks/rack_type.ts), and the height rule then names `rack_type`.
 */
import type { ModelHooks } from '../data/registry.js';
import { loadRacks, steps } from './rack_space.js';
import { rackElevation } from './rack_elevation.js';
import { model } from '../data/registry.js';
import { fromRackType } from './rack_type.js';

export const rack: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const typed = items.filter((i) => pick(i, 'rack_type_id') != null);
    if (typed.length) {
      const types = new Map((await db(model('RackType').definition.table).whereIn('id', [...new Set(typed.map((i) => pick(i, 'rack_type_id')))])).map((t) => [Number(t.id), t]));
      for (const item of typed) {
        const type = types.get(Number(pick(item, 'rack_type_id')));
        if (type) Object.assign(item.values, fromRackType(type));
      }
    }
    for (const item of items) {
      if ((pick(item, 'outer_width') != null || pick(item, 'outer_depth') != null) && !pick(item, 'outer_unit')) item.errors.add('outer_unit', 'Must specify a unit when setting an outer width/depth');
      if ((pick(item, 'max_weight') != null || pick(item, 'weight') != null) && !pick(item, 'weight_unit')) item.errors.add('weight_unit', 'Must specify a unit when setting a weight or maximum weight');
    }
    const resized = items.filter((i) => i.existing && (i.values.u_height !== undefined || i.values.starting_unit !== undefined));
    const spaces = await loadRacks(db, resized.map((i) => i.id!));
    for (const item of resized) {
      const devices = spaces.get(item.id!)?.devices ?? [];
      if (!devices.length) continue;
      const top = Math.max(...devices.map((d) => steps(d.position, d.height).pop() ?? d.position));
      const lowest = Math.min(...devices.map((d) => d.position));
      const start = Number(pick(item, 'starting_unit') ?? 1);
      const needed = Math.ceil(top + 0.5 - start);
      if (Number(pick(item, 'u_height')) < needed) item.errors.add(pick(item, 'rack_type_id') != null ? 'rack_type' : 'u_height', `Rack must be at least ${needed}U tall to house currently installed devices.`);
      if (start > lowest) item.errors.add('starting_unit', `Rack unit numbering must begin at ${Math.floor(lowest)} or less to house currently installed devices.`);
    }
  },
  actions: { rack_elevation: rackElevation },
};
