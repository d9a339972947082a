/**
 * Rack reservations: units are whole unit numbers of the rack, none of them reserved twice; the
 * `unit` filter finds the reservations holding a unit.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';

const table = () => model('RackReservation').definition.table;

function unitList(raw: unknown): unknown[] | null {
  const value = typeof raw === 'string' ? JSON.parse(raw) : raw;
  return Array.isArray(value) ? value : null;
}

export const rackReservation: ModelHooks = {
  filters: {
    reservation_unit(qb, values) {
      // Units are stored as a JSON list; match the number as a whole element.
      const units = values.filter((v) => /^\d+$/.test(v));
      qb.where((w) => { for (const u of units) w.orWhere('units', 'like', `%[${u},%`).orWhere('units', 'like', `%,${u},%`).orWhere('units', 'like', `%,${u}]%`).orWhere('units', 'like', `%[${u}]%`); });
      if (!units.length) qb.whereRaw('1 = 0');
    },
  },
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const rackIds = [...new Set(items.map((i) => pick(i, 'rack_id')).filter((v) => v != null).map(Number))];
    if (!rackIds.length) return;
    const racks = new Map((await db(model('Rack').definition.table).select('id', 'u_height', 'starting_unit').whereIn('id', rackIds)).map((r) => [Number(r.id), r]));
    const others = await db(table()).select('id', 'rack_id', 'units').whereIn('rack_id', rackIds);
    for (const item of items) {
      const units = unitList(pick(item, 'units'));
      if (!units || !units.length || units.some((u) => !Number.isInteger(u) || (u as number) < 0)) {
        item.errors.add('units', 'Enter a list of rack unit numbers.');
        continue;
      }
      const rack = racks.get(Number(pick(item, 'rack_id')));
      if (!rack) continue;
      const bottom = Number(rack.starting_unit ?? 1);
      const invalid = units.filter((u) => (u as number) < bottom || (u as number) >= bottom + Number(rack.u_height));
      if (invalid.length) { item.errors.add('units', `Invalid unit(s) for ${rack.u_height}U rack: ${invalid.join(', ')}`); continue; }
      const reserved = new Set(others.filter((o) => Number(o.rack_id) === Number(rack.id) && Number(o.id) !== item.id).flatMap((o) => unitList(o.units) ?? []));
      const clash = units.filter((u) => reserved.has(u));
      if (clash.length) item.errors.add('units', `The following units have already been reserved: ${clash.join(', ')}`);
      item.values.units = JSON.stringify([...new Set(units)].sort((a, b) => (a as number) - (b as number)));
      // Later elements of the same request see this one's units as reserved.
      others.push({ id: item.id ?? -1, rack_id: rack.id, units: item.values.units });
    }
  },
};
