/**
 * Rack types (NetBox 4.1): outer dimensions and weights need their unit, and a type's physical
 * fields are its racks' (`RACK_TYPE_FIELDS`, copied onto a rack by hooks/rack.ts on each rack write,
 * and onto every rack of the type here when the type changes, each rack's update change-logged).
 */
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { updateRows } from '../data/side-writes.js';

/** rack column → rack type column, for the fields a rack takes from its type (a rack's `type` is the type's `form_factor`) */
export const RACK_TYPE_FIELDS: Record<string, string> = {
  type: 'form_factor', width: 'width', u_height: 'u_height', starting_unit: 'starting_unit', desc_units: 'desc_units',
  outer_width: 'outer_width', outer_depth: 'outer_depth', outer_unit: 'outer_unit', mounting_depth: 'mounting_depth',
  weight: 'weight', weight_unit: 'weight_unit', max_weight: 'max_weight',
};

/** a rack's values taken from its type's row */
export function fromRackType(type: Row): Row {
  return Object.fromEntries(Object.entries(RACK_TYPE_FIELDS).map(([rack, own]) => [rack, type[own] ?? null]));
}

const pick = (item: WriteItem, column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);

/** the unit rules racks and rack types share (NetBox's clean() of both) */
export function checkUnits(item: WriteItem, dimensions: string[]): void {
  if (dimensions.some((c) => pick(item, c) != null) && !pick(item, 'outer_unit')) item.errors.add('outer_unit', 'Must specify a unit when setting an outer dimension');
  if (pick(item, 'max_weight') != null && !pick(item, 'weight_unit')) item.errors.add('weight_unit', 'Must specify a unit when setting a maximum weight');
  else if (pick(item, 'weight') != null && !pick(item, 'weight_unit')) item.errors.add('weight_unit', 'Must specify a unit when setting a weight');
}

export const rackType: ModelHooks = {
  prepare(item) {
    checkUnits(item, ['outer_width', 'outer_height', 'outer_depth']);
  },
  async afterWrite(rows, { db, request, items }) {
    const changed = rows.filter((r) => items.some((i) => i.existing && i.id === Number(r.id)));
    if (!changed.length) return false;
    const racks = model('Rack');
    const members = await db(racks.definition.table).select('id', 'rack_type_id').whereIn('rack_type_id', changed.map((r) => r.id));
    const byId = new Map(changed.map((r) => [Number(r.id), r]));
    await updateRows({ db, request }, racks, members.map((m) => ({ id: Number(m.id), values: fromRackType(byId.get(Number(m.rack_type_id))!) })));
    return false;
  },
};
