/**
 * Relations an object must share with the object it points at, as the schema declares them with
 * `same:` on an fk (a front port's rear port is on the same device; a template's rear port template
 * belongs to the same device type). One query per such field and request, for single and bulk writes
 * alike; a null on the writing side skips that relation.
 */
import type { Knex } from 'knex';
import type { ModelEntry } from '../core/types.js';
import { model, type Row, type WriteItem } from './registry.js';

const CHUNK = 500;

function current(item: WriteItem, column: string): unknown {
  return column in item.values ? item.values[column] : item.existing?.[column];
}

export async function checkSharedRelations(db: Knex, entry: ModelEntry, items: WriteItem[]): Promise<void> {
  const fields = entry.definition.fields;
  for (const f of Object.values(fields)) {
    if (f.type !== 'fk' || !f.same?.length) continue;
    const column = f.columns[0];
    const sharedColumns = f.same.map((name) => fields[name].columns[0]);
    // Only elements that set the relation or one of the shared relations need a look.
    const relevant = items.filter((i) => i.errors.empty && current(i, column) != null && [column, ...sharedColumns].some((c) => c in i.values));
    if (!relevant.length) continue;
    const target = model(f.to!).definition;
    const targetColumns = f.same.map((name) => target.fields[name].columns[0]);
    const named = target.fields.name?.columns.length ? ['name'] : [];
    const ids = [...new Set(relevant.map((i) => Number(current(i, column))))];
    const rows = new Map<number, Row>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const r of await db(target.table).select('id', ...named, ...targetColumns).whereIn('id', ids.slice(i, i + CHUNK))) rows.set(Number(r.id), r);
    }
    for (const item of relevant) {
      const row = rows.get(Number(current(item, column)));
      if (!row) continue;
      f.same.forEach((name, k) => {
        const mine = current(item, sharedColumns[k]);
        if (mine == null) return;
        const theirs = row[targetColumns[k]];
        if (theirs == null || Number(theirs) !== Number(mine)) {
          item.errors.add(f.name, `${capitalise(target.verboseName)} ${row.name ?? row.id} must belong to the same ${fields[name].label.toLowerCase()}.`);
        }
      });
    }
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
