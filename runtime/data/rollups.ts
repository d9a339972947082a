/**
 * Fields the schema keeps equal to a sum over the rows pointing at their object (`sum_of`: a virtual
 * machine's disk is the total size of its virtual disks while it has any). Writes to the summed model
 * refresh the parents they touch, in the same transaction; writes to the parent may not contradict
 * the sum (null takes it).
 */
import type { Knex } from 'knex';
import { modelList, type Row, type WriteItem } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { conversions } from '../core/conversions.js';

interface Rollup {
  parent: ModelEntry;
  field: FieldDefinition;
  /** column of the summed model pointing at the parent, and the summed column */
  link: string;
  value: string;
  /** the summed model's name for people, e.g. virtual disk */
  childName: string;
}

let all: Rollup[] | null = null;
function rollups(): Rollup[] {
  return (all ??= modelList.flatMap((parent) => Object.values(parent.definition.fields).filter((f) => f.sumOf).map((field) => {
    const child = modelList.find((m) => m.definition.name === field.sumOf!.model)!;
    return { parent, field, link: child.definition.fields[field.sumOf!.field].columns[0], value: child.definition.fields[field.sumOf!.value].columns[0], childName: child.definition.verboseName };
  })));
}

/** The rollups a model's rows feed. */
export function rollupsFedBy(entry: ModelEntry): Rollup[] {
  return rollups().filter((r) => r.field.sumOf!.model === entry.definition.name);
}

/** Parent ids the given rows of a summed model point at, per rollup. */
export function parentsOf(entry: ModelEntry, rows: Row[]): Map<Rollup, Set<number>> {
  const out = new Map<Rollup, Set<number>>();
  for (const r of rollupsFedBy(entry)) {
    const ids = new Set(rows.map((row) => row[r.link]).filter((v) => v !== null && v !== undefined).map(Number));
    if (ids.size) out.set(r, ids);
  }
  return out;
}

async function sums(db: Knex, r: Rollup, ids: number[]): Promise<Map<number, number>> {
  const table = modelList.find((m) => m.definition.name === r.field.sumOf!.model)!.definition.table;
  const rows = await db(table).whereIn(r.link, ids).groupBy(r.link).select(`${r.link} as id`).sum(`${r.value} as total`);
  return new Map(rows.map((x: Row) => [Number(x.id), Number(x.total)]));
}

/** Sets each parent's field to the current sum (null when no row is left). */
export async function refreshRollups(db: Knex, parents: Map<Rollup, Set<number>>): Promise<void> {
  for (const [r, set] of parents) {
    const ids = [...set];
    const totals = await sums(db, r, ids);
    for (const id of ids) await db(r.parent.definition.table).where('id', id).update({ [r.field.columns[0]]: totals.get(id) ?? null });
  }
}

/** On writes to a parent: a given value must equal the sum while summed rows exist; null takes the sum. */
export async function checkRollups(db: Knex, entry: ModelEntry, items: WriteItem[]): Promise<void> {
  for (const r of rollups().filter((x) => x.parent === entry)) {
    const column = r.field.columns[0];
    const touched = items.filter((i) => i.id !== null && column in i.values);
    if (!touched.length) continue;
    const totals = await sums(db, r, touched.map((i) => i.id!));
    for (const item of touched) {
      const total = totals.get(item.id!);
      if (total === undefined) continue;
      // a value written through a conversion (3.7's GB) is compared as that version reads the total
      const conversion = conversions[item.converted?.[r.field.name] ?? ''];
      const shown = (v: number) => (conversion ? conversion.read(v, {}, r.field.name) : v);
      if (item.values[column] === null || shown(Number(item.values[column])) === shown(total)) item.values[column] = total;
      else item.errors.add(r.field.name, `Must equal ${String(shown(total))}, the total ${r.field.sumOf!.value} of its ${r.childName}s, while it has any.`);
    }
  }
}
