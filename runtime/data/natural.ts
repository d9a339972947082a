/**
 * Natural order, as NetBox sorts names: digit runs compare as numbers, so dc2 comes before dc10 and
 * eth1/2 before eth1/10. The key pads every digit run to 8 places and is hex-encoded, so both
 * databases order it the same whatever their collation.
 */
import type { Knex } from 'knex';
import { modelList } from './registry.js';
import { updateEach } from './db.js';

export function naturalKey(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const padded = value.toLowerCase().replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, '').padStart(8, '0'));
  return Buffer.from(padded, 'utf8').toString('hex');
}

/** Fills sort keys missing after an upgrade (rows written before a field became natural). */
export async function backfillNaturalKeys(db: Knex): Promise<void> {
  for (const entry of modelList) {
    for (const f of Object.values(entry.definition.fields).filter((x) => x.natural)) {
      const [column, key] = f.columns;
      for (;;) {
        const rows = await db(entry.definition.table).select('id', column).whereNull(key).whereNotNull(column).limit(1000);
        if (!rows.length) break;
        await updateEach(db, entry.definition.table, rows.map((row: Record<string, any>) => ({ id: Number(row.id), values: { [key]: naturalKey(row[column]) } })));
      }
    }
  }
}
