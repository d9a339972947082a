/**
 * Cables: `a_terminations` / `b_terminations` read as [{object_type, object_id, object}] and written
 * as [{object_type, object_id}] (checked by cable_rules.ts), stored as cable terminations; every
 * write that changes the ends or the status, and every delete, re-traces the paths concerned inside
 * the transaction. The filters by termination (Ansible's netbox_cable looks cables up by
 * termination_a_type/_id and termination_b_type/_id), by a terminated object (`interface_id`...),
 * device, rack, location and site (through the terminated objects' device), and `unterminated`.
 */
import type { Knex } from 'knex';
import { model, type ComputedContext, type ModelHooks, type Row, type WriteItem } from '../data/registry.js';
import { byContentType } from '../data/registry.js';
import { parseBoolean } from '../core/query-values.js';
import { checkObjects, checkPair, parseEnd, setTerminations, type End } from './cable_rules.js';
import { cabledModels, nodeKey, retrace, traceAll } from './cable_paths.js';

const terminations = () => model('CableTermination').definition.table;
const cableType = () => model('Cable').definition.contentType;

/** The ends each element of a request sets, kept from the checks to the write. */
const parsed = new WeakMap<WriteItem, Record<'A' | 'B', End | null>>();

async function termsOf(db: Knex, rows: Row[]): Promise<Map<number, Row[]>> {
  const map = new Map<number, Row[]>();
  const ids = rows.map((r) => Number(r.id));
  for (let i = 0; i < ids.length; i += 500) {
    for (const ct of await db(terminations()).whereIn('cable_id', ids.slice(i, i + 500)).orderBy('id')) map.set(Number(ct.cable_id), [...(map.get(Number(ct.cable_id)) ?? []), ct]);
  }
  return map;
}

function side(end: 'A' | 'B') {
  const lookups = new WeakMap<Row[], Promise<Map<number, Row[]>>>();
  return async (rows: Row[], ctx: ComputedContext) => {
    let found = lookups.get(rows);
    if (!found) lookups.set(rows, (found = termsOf(ctx.db, rows)));
    const all = await found;
    return new Map(rows.map((r) => [Number(r.id), (all.get(Number(r.id)) ?? []).filter((ct) => ct.cable_end === end).map((ct) => {
      const target = byContentType.get(ct.termination_type);
      return { object_type: ct.termination_type, object_id: Number(ct.termination_id), object: target ? ctx.refer(target.definition.name, Number(ct.termination_id)) : null };
    })]));
  };
}

/** Cables with a termination on `end` (or either end) matching the query. */
function byTermination(end: 'A' | 'B' | null, where: (q: Knex.QueryBuilder) => void) {
  return (qb: Knex.QueryBuilder, _values: string[], ctx: { db: Knex }) => {
    const q = ctx.db(terminations()).select('cable_id');
    if (end) q.where('cable_end', end);
    where(q);
    qb.whereIn('id', q);
  };
}

const ids = (values: string[]) => values.filter((v) => /^\d+$/.test(v)).map(Number);

/** Terminations on objects whose parent (device, …) matches: through each cabled model's `parent`. */
function byParent(match: (q: Knex.QueryBuilder, parentTable: string) => void) {
  return (qb: Knex.QueryBuilder, _values: string[], ctx: { db: Knex }) => {
    qb.whereIn('id', (sub) => {
      sub.from(terminations()).select('cable_id').where((w) => {
        for (const m of cabledModels()) {
          const parent = m.definition.cabling!.parent;
          const f = parent ? m.definition.fields[parent] : undefined;
          if (!f || f.to !== 'Device') continue;
          const parentTable = model(f.to).definition.table;
          w.orWhere((x) => x.where('termination_type', m.definition.contentType).whereIn('termination_id',
            ctx.db(m.definition.table).select(`${m.definition.table}.id`).join(parentTable, `${parentTable}.id`, `${m.definition.table}.${f.columns[0]}`).where((y) => match(y, parentTable))));
        }
      });
    });
  };
}

/** Cables whose terminated objects' device has `column` among the ids given, or (with `target`) among the target rows whose `key` is given. */
function byDeviceRelation(column: string, target?: string, key?: string) {
  return (qb: Knex.QueryBuilder, values: string[], ctx: { db: Knex }) => byParent((q, t) => q.whereIn(`${t}.${column}`,
    target ? ctx.db(model(target).definition.table).select('id').whereIn(key!, values) : ids(values)))(qb, values, ctx);
}

/** Cables with a termination on a row of this cabled model (`?interface_id=`, `?frontport_id=`, ...), by model name. */
const byTerminationKind = Object.fromEntries(cabledModels().map((m) => [
  `cable_${m.definition.contentType.split('.')[1]}_id`,
  (qb: Knex.QueryBuilder, values: string[], ctx: { db: Knex }) => byTermination(null, (q) => q.where('termination_type', m.definition.contentType).whereIn('termination_id', ids(values)))(qb, values, ctx),
]));

/** Cables terminated on both ends. */
const terminatedBoth = (db: Knex) => db(terminations()).select('cable_id').where('cable_end', 'A')
  .whereIn('cable_id', db(terminations()).select('cable_id').where('cable_end', 'B'));

export const cable: ModelHooks = {
  computed: {
    a_terminations: side('A'),
    b_terminations: side('B'),
  },
  filters: {
    cable_termination_a_type: (qb, values, ctx) => byTermination('A', (q) => q.whereIn('termination_type', values))(qb, values, ctx),
    cable_termination_b_type: (qb, values, ctx) => byTermination('B', (q) => q.whereIn('termination_type', values))(qb, values, ctx),
    cable_termination_a_id: (qb, values, ctx) => byTermination('A', (q) => q.whereIn('termination_id', ids(values)))(qb, values, ctx),
    cable_termination_b_id: (qb, values, ctx) => byTermination('B', (q) => q.whereIn('termination_id', ids(values)))(qb, values, ctx),
    cable_device_id: (qb, values, ctx) => byParent((q, t) => q.whereIn(`${t}.id`, ids(values)))(qb, values, ctx),
    cable_device: (qb, values, ctx) => byParent((q, t) => q.whereIn(`${t}.name`, values))(qb, values, ctx),
    cable_site_id: byDeviceRelation('site_id'),
    cable_site: byDeviceRelation('site_id', 'Site', 'slug'),
    cable_rack_id: byDeviceRelation('rack_id'),
    cable_rack: byDeviceRelation('rack_id', 'Rack', 'name'),
    cable_location_id: byDeviceRelation('location_id'),
    cable_location: byDeviceRelation('location_id', 'Location', 'name'),
    /** `?unterminated=true`: cables missing the terminations of an end; false: those with both */
    cable_unterminated: (qb, values, ctx) => {
      if (parseBoolean('unterminated', values[values.length - 1])) qb.whereNotIn('id', terminatedBoth(ctx.db));
      else qb.whereIn('id', terminatedBoth(ctx.db));
    },
    ...byTerminationKind,
  },
  prepare(item) {
    const length = item.values.length !== undefined ? item.values.length : item.existing?.length;
    const unit = item.values.length_unit !== undefined ? item.values.length_unit : item.existing?.length_unit;
    if (length !== null && length !== undefined && !unit) item.errors.add('length_unit', 'Must specify a unit when setting a cable length');
    // no length, no unit
    if ((length === null || length === undefined) && unit) item.values.length_unit = '';
  },
  async prepareMany(items, { db }) {
    const checks: Parameters<typeof checkObjects>[1] = [];
    const stored = await termsOf(db, items.filter((i) => i.existing).map((i) => i.existing!));
    for (const item of items) {
      const ends: Record<'A' | 'B', End | null> = { A: null, B: null };
      for (const [key, end] of [['a_terminations', 'A'], ['b_terminations', 'B']] as const) {
        if (key in item.input) ends[end] = parseEnd(item, key, item.input[key]);
        else if (!item.existing) item.errors.add(key, 'Must define A and B terminations when creating a new cable.');
      }
      if (!item.errors.empty) continue;
      for (const [key, end] of [['a_terminations', 'A'], ['b_terminations', 'B']] as const) {
        if (ends[end] && !ends[end]!.ids.length && !item.existing) item.errors.add(key, 'Must define A and B terminations when creating a new cable.');
      }
      // a side not sent keeps its stored terminations, and must still fit the other one
      const current = (end: 'A' | 'B'): End => {
        if (ends[end]) return ends[end]!;
        const rows = (stored.get(Number(item.id)) ?? []).filter((ct) => ct.cable_end === end);
        return { type: rows[0]?.termination_type ?? '', ids: rows.map((ct) => Number(ct.termination_id)) };
      };
      if (ends.A || ends.B) checkPair(item, current('A'), current('B'));
      for (const [key, end] of [['a_terminations', 'A'], ['b_terminations', 'B']] as const) {
        if (ends[end]) checks.push({ item, field: key, end: ends[end]!, cable: item.id });
      }
      parsed.set(item, ends);
    }
    await checkObjects(db, checks.filter((c) => c.item.errors.empty));
  },
  async afterWrite(rows, { db, items, request }) {
    const through: string[] = [];
    const origins: string[] = [];
    const statusOf = new Map(rows.map((r) => [Number(r.id), r.status]));
    const rewired = new Set(items.filter((i) => parsed.get(i)?.A || parsed.get(i)?.B));
    through.push(...await setTerminations({ db, request }, [...rewired].map((i) => ({ cable: i.id!, ends: parsed.get(i)! }))));
    for (const item of items) {
      const id = item.id!;
      const endsChanged = rewired.has(item);
      const statusChanged = item.existing && item.existing.status !== statusOf.get(id);
      if (!endsChanged && !statusChanged) continue;
      through.push(nodeKey(cableType(), id));
      // every endpoint on the cable starts a path of its own end
      for (const ct of await db(terminations()).where('cable_id', id)) {
        const m = byContentType.get(ct.termination_type);
        const node = nodeKey(ct.termination_type, ct.termination_id);
        if (m?.definition.cabling?.role === 'endpoint') origins.push(node);
        else through.push(node);
      }
    }
    if (through.length || origins.length) await retrace(db, through, origins);
  },
  /** An import writes cables and their terminations as rows: their paths are traced once all are in. */
  afterImport: traceAll,
  /** The cables' ends are freed, and every path through them re-forms without them. */
  async beforeDelete(cableIds, { db }) {
    const gone = new Set(cableIds.map((id) => nodeKey(cableType(), id)));
    const through = [...gone];
    const ends: Row[] = [];
    for (let i = 0; i < cableIds.length; i += 500) ends.push(...await db(terminations()).whereIn('cable_id', cableIds.slice(i, i + 500)));
    for (const ct of ends) {
      through.push(nodeKey(ct.termination_type, ct.termination_id));
      await db(byContentType.get(ct.termination_type)!.definition.table).where('id', ct.termination_id).update({ cable_id: null, cable_end: null });
    }
    await retrace(db, through, [], gone);
  },
};
