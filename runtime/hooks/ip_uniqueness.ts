/**
 * Duplicate prefixes and IP addresses within one VRF (or the global table) are refused, as NetBox
 * does with ENFORCE_GLOBAL_UNIQUE on and VRF.enforce_unique: one query for the whole request.
 */
import type { Knex } from 'knex';
import type { Row, WriteItem } from '../data/registry.js';

interface Options {
  table: string;
  /** the column compared: the prefix text, or the address host bytes */
  column: string;
  noun: string;
  text: (row: Row) => string;
}

const key = (vrf: unknown, value: unknown) => `${vrf ?? 'global'}|${Buffer.isBuffer(value) ? value.toString('hex') : String(value)}`;

export async function refuseDuplicates(db: Knex, items: WriteItem[], o: Options): Promise<void> {
  const final = (i: WriteItem) => ({ ...(i.existing ?? {}), ...i.values });
  const relevant = items.filter((i) => o.column in i.values || 'vrf_id' in i.values);
  if (!relevant.length) return;
  const vrfIds = [...new Set(relevant.map((i) => final(i).vrf_id).filter((v) => v !== null && v !== undefined))];
  const vrfs = new Map<number, Row>(vrfIds.length ? (await db('ipam_vrf').select('id', 'name', 'enforce_unique').whereIn('id', vrfIds)).map((v: Row) => [Number(v.id), v]) : []);
  const enforced = (vrf: unknown) => vrf === null || vrf === undefined || [true, 1, '1'].includes(vrfs.get(Number(vrf))?.enforce_unique);
  const checked = relevant.filter((i) => enforced(final(i).vrf_id));
  if (!checked.length) return;
  const values = [...new Set(checked.map((i) => final(i)[o.column]))];
  const taken = new Map<string, number>();
  for (let i = 0; i < values.length; i += 1000) {
    for (const r of await db(o.table).select('id', 'vrf_id', o.column).whereIn(o.column, values.slice(i, i + 1000))) taken.set(key(r.vrf_id, r[o.column]), Number(r.id));
  }
  const seen = new Set<string>();
  for (const item of checked) {
    const row = final(item);
    const k = key(row.vrf_id, row[o.column]);
    const owner = taken.get(k);
    if ((owner !== undefined && owner !== item.id) || seen.has(k)) {
      const where = row.vrf_id === null || row.vrf_id === undefined ? 'global table' : `VRF ${vrfs.get(Number(row.vrf_id))?.name}`;
      item.errors.add(o.column === 'prefix' ? 'prefix' : 'address', `Duplicate ${o.noun} found in ${where}: ${o.text(row)}`);
    }
    seen.add(k);
  }
}
