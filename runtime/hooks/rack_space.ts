/**
 * Rack space, shared by the device, device-type and rack rules and the elevation: which half-units
 * the devices mounted in a rack occupy on which face. A full-depth device blocks both faces; a
 * device of height h at position p occupies p, p+0.5, … p+h-0.5. Loaded set-wise for many racks.
 */
import type { Knex } from 'knex';
import { model, type Row } from '../data/registry.js';

export interface Mounted {
  id: number;
  name: string | null;
  position: number;
  face: string;
  height: number;
  fullDepth: boolean;
}

export interface RackSpace {
  rack: Row;
  devices: Mounted[];
}

/** Racks by id with their mounted devices (one query for the racks, one for the devices). */
export async function loadRacks(db: Knex, rackIds: number[]): Promise<Map<number, RackSpace>> {
  const out = new Map<number, RackSpace>();
  const ids = [...new Set(rackIds)];
  if (!ids.length) return out;
  for (const rack of await db(model('Rack').definition.table).whereIn('id', ids)) out.set(Number(rack.id), { rack, devices: [] });
  const mounted = await db(`${model('Device').definition.table} as d`).join(`${model('DeviceType').definition.table} as t`, 't.id', 'd.device_type_id')
    .select('d.id', 'd.name', 'd.rack_id', 'd.position', 'd.face', 't.u_height', 't.is_full_depth')
    .whereIn('d.rack_id', ids).whereNotNull('d.position').orderBy('d.position', 'desc');
  for (const d of mounted) {
    out.get(Number(d.rack_id))?.devices.push({ id: Number(d.id), name: d.name, position: Number(d.position), face: d.face, height: Number(d.u_height), fullDepth: !!d.is_full_depth && d.is_full_depth !== '0' && d.is_full_depth !== 'f' });
  }
  return out;
}

/** The half-unit steps a device of `height` at `position` covers. */
export function steps(position: number, height: number): number[] {
  const out: number[] = [];
  for (let u = position; u < position + height; u += 0.5) out.push(u);
  return out;
}

/** Whether two mounts share a face: either is full depth, or they are on the same face. */
function shareFace(a: { face: string; fullDepth: boolean }, b: { face: string; fullDepth: boolean }): boolean {
  return a.fullDepth || b.fullDepth || a.face === b.face;
}

/** The device in the way of a mount (outside the rack: `outside`), or null when it fits. */
export function obstacle(space: RackSpace, mount: Omit<Mounted, 'id' | 'name'> & { id: number | null }): Mounted | 'outside' | null {
  const bottom = Number(space.rack.starting_unit ?? 1);
  const top = bottom + Number(space.rack.u_height) - 0.5;
  const wanted = steps(mount.position, mount.height);
  if (mount.position < bottom || (wanted.length && wanted[wanted.length - 1] > top)) return 'outside';
  const taken = new Set(wanted);
  return space.devices.find((d) => d.id !== mount.id && shareFace(d, mount) && steps(d.position, d.height).some((u) => taken.has(u))) ?? null;
}

/** Unit numbers of the rack in half-unit steps (NetBox's Rack.units): top first unless the rack numbers downwards. */
export function units(rack: Row): number[] {
  const bottom = Number(rack.starting_unit ?? 1);
  const list = Array.from({ length: Number(rack.u_height) * 2 }, (_, i) => bottom + i / 2);
  const descending = rack.desc_units === true || rack.desc_units === 1 || rack.desc_units === '1';
  return descending ? list : list.reverse();
}
