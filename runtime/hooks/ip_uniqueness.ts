/**
 * Duplicate prefixes and IP addresses within one VRF whose enforce_unique is set, or within the global
 * table while ENFORCE_GLOBAL_UNIQUE is on (NetBox 3.7's default), are refused: one query for the whole request.
 * Addresses may share a host when the new one and every existing one have a role meant to be shared
 * (anycast, VIP, VRRP, HSRP, GLBP, CARP).
 */
import type { Knex } from 'knex';
import type { Row, WriteItem } from '../data/registry.js';
import type { RuleSettings } from '../data/write-context.js';
import { whereAny } from '../data/any.js';

interface Options {
  table: string;
  /** the column compared: the prefix text, or the address host bytes */
  column: string;
  noun: string;
  text: (row: Row) => string;
  /** rows that may share their value with other such rows (shared-address roles) */
  shareable?: { column: string; values: string[] };
  /**
   * A column the value's index leads with and that equal values always share (an address's family:
   * equal host bytes have equal lengths). The lookup names the request's values of it too, so each
   * value is one index probe instead of a scan of the table.
   */
  leading?: string;
}

const key = (vrf: unknown, value: unknown) => `${vrf ?? 'global'}|${Buffer.isBuffer(value) ? value.toString('hex') : String(value)}`;

export async function refuseDuplicates(db: Knex, items: WriteItem[], o: Options, rules?: RuleSettings): Promise<void> {
  // each item's row as it will be stored, built once (a create's is its values: nothing to merge)
  const rows = new Map<WriteItem, Row>();
  const final = (i: WriteItem): Row => {
    let row = rows.get(i);
    if (!row) rows.set(i, (row = i.existing ? { ...i.existing, ...i.values } : i.values));
    return row;
  };
  const shared = (row: Row) => !!o.shareable && o.shareable.values.includes(row[o.shareable.column]);
  const relevant = items.filter((i) => o.column in i.values || 'vrf_id' in i.values || (o.shareable && o.shareable.column in i.values));
  if (!relevant.length) return;
  const vrfIds = [...new Set(relevant.map((i) => final(i).vrf_id).filter((v) => v !== null && v !== undefined))];
  const vrfs = new Map<number, Row>(vrfIds.length ? (await db('ipam_vrf').select('id', 'name', 'enforce_unique').whereIn('id', vrfIds)).map((v: Row) => [Number(v.id), v]) : []);
  const globalUnique = rules?.enforceGlobalUnique ?? true;
  const enforced = (vrf: unknown) => (vrf === null || vrf === undefined ? globalUnique : [true, 1, '1'].includes(vrfs.get(Number(vrf))?.enforce_unique));
  const checked = relevant.filter((i) => enforced(final(i).vrf_id));
  if (!checked.length) return;
  const values = [...new Set(checked.map((i) => final(i)[o.column]))];
  // every stored row holding one of the values, by VRF and value
  const taken = new Map<string, Row[]>();
  const columns = ['id', 'vrf_id', o.column, ...(o.shareable ? [o.shareable.column] : [])];
  const leading = o.leading ? [...new Set(checked.map((i) => final(i)[o.leading!]))] : [];
  // (a row without the column is looked up by its value alone)
  const byLeading = leading.length > 0 && leading.every((v) => v !== null && v !== undefined);
  for (let i = 0; i < values.length; i += 1000) {
    const q = db(o.table).select(columns);
    if (byLeading) whereAny(db, q, o.leading!, leading);
    for (const r of await whereAny(db, q, o.column, values.slice(i, i + 1000))) {
      const k = key(r.vrf_id, r[o.column]);
      const list = taken.get(k);
      if (list) list.push(r); else taken.set(k, [r]);
    }
  }
  const seen = new Map<string, Row[]>();
  for (const item of checked) {
    const row = final(item);
    const k = key(row.vrf_id, row[o.column]);
    const earlier = seen.get(k);
    const others = (taken.get(k) ?? []).filter((r) => Number(r.id) !== item.id);
    if (earlier) others.push(...earlier);
    if (others.length && !(shared(row) && others.every(shared))) {
      const where = row.vrf_id === null || row.vrf_id === undefined ? 'global table' : `VRF ${vrfs.get(Number(row.vrf_id))?.name}`;
      item.errors.add(o.column === 'prefix' ? 'prefix' : 'address', `Duplicate ${o.noun} found in ${where}: ${o.text(row)}`);
    }
    if (earlier) earlier.push(row); else seen.set(k, [row]);
  }
}
