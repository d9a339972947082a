/**
 * `q`, the search filter: the text against the model's search fields (text contains, an address
 * starts with, a number equals, a prefix contains a network) and fields of related objects.
 */
import type { Knex } from 'knex';
import { parseNetwork } from '../core/ipnet.js';
import { byContentType, model } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import { isPostgres } from './db.js';
import { searchTable } from './search-index.js';
import { splitPath } from '../core/paths.js';
import { escapeLike, type Where } from './filter-compare.js';

/**
 * `q` on an IP address matches addresses whose text (`192.0.2.1/24`) starts with the text, as
 * NetBox's `address__istartswith` does (`10.0.1.` finds 10.0.1.0-255, whatever the mask;
 * `192.0.2.1/24` finds that address), so an index answers it: the stored text is canonical lowercase
 * and holds only hex digits, dots, colons, '/' and the mask, so text with anything else (a name)
 * matches no address. Both engines answer
 * the case-sensitive prefix match on the lower-cased text from an index on the column: PostgreSQL's
 * LIKE through a text_pattern_ops index, SQLite's GLOB through a plain one.
 */
function addressStartsWith(w: Where, column: string, text: string, postgres: boolean): void {
  const prefix = text.toLowerCase();
  if (!/^[0-9a-f.:/]+$/.test(prefix)) { w.orWhereRaw('1 = 0'); return; }
  if (postgres) w.orWhereRaw('?? like ?', [column, `${prefix}%`]);
  else w.orWhereRaw('?? glob ?', [column, `${prefix}*`]);
}

/**
 * `q` on a text column: icontains. SQLite's LIKE ignores ASCII case already, as lower() does there,
 * so the column is compared as stored; where an FTS5 trigram table indexes the column
 * (search-index.ts) it answers a plain LIKE from its index (with an ESCAPE clause it would scan, and
 * a trigram needs three characters). PostgreSQL's trigram indexes are on lower(column), without
 * empty text.
 */
function textContains(w: Where, db: Knex, table: string, column: string, text: string, postgres: boolean): void {
  const pattern = `%${escapeLike(text.toLowerCase())}%`;
  // `?? <> ''` lets PostgreSQL use a trigram index that leaves empty text out (0041): the same answer.
  if (postgres) { w.orWhereRaw(`(lower(??) like ? escape '\\' and ?? <> '')`, [column, pattern, column]); return; }
  const fts = searchTable(table, column);
  if (fts && text.length >= 3 && !/[%_\\]/.test(text)) w.orWhereIn('id', db(fts).select('rowid').whereRaw('?? like ?', [column, `%${text}%`]));
  else w.orWhereRaw(`?? like ? escape '\\'`, [column, pattern]);
}

/**
 * `q` on a field of a related object (`contact.name`, or through a generic relation
 * `member[circuits.circuit].cid`): the rows whose related row's field contains the text, walking the
 * relations back to this model.
 */
function relatedMatch(db: Knex, entry: ModelEntry, path: string, pattern: string): (w: Knex.QueryBuilder) => void {
  const parts = splitPath(path);
  const chain: { from: ModelEntry; column: string; type?: [string, string] }[] = [];
  let current = entry;
  for (const part of parts.slice(0, -1)) {
    const [, name, type] = /^(\w+)(?:\[([\w.]+)\])?$/.exec(part)!;
    if (type) {
      chain.push({ from: current, column: `${name}_id`, type: [`${name}_type`, type] });
      current = byContentType.get(type)!;
    } else {
      const f = current.definition.fields[name];
      chain.push({ from: current, column: f.columns[0] });
      current = model(f.to!);
    }
  }
  const column = current.definition.fields[parts[parts.length - 1]].columns[0];
  let ids = db(current.definition.table).select('id').whereRaw(`lower(??) like ? escape '\\'`, [column, pattern]);
  const step = (q: Knex.QueryBuilder, link: typeof chain[number], inner: Knex.QueryBuilder) => {
    if (link.type) q.where(link.type[0], link.type[1]);
    return q.whereIn(link.column, inner);
  };
  for (let i = chain.length - 1; i >= 1; i--) ids = step(db(chain[i].from.definition.table).select('id'), chain[i], ids);
  return (w) => { w.orWhere((x) => { step(x, chain[0], ids); }); };
}

/** Applies `q` (its first value) to `qb`. */
export function applySearch(qb: Where, entry: ModelEntry, values: string[], db: Knex): void {
  const text = values[0].trim();
  if (!text) return;
  const pattern = `%${escapeLike(text.toLowerCase())}%`;
  const network = parseNetwork(text);
  const postgres = isPostgres(db);
  qb.where((w) => {
    // objects other rows point at when those rows match (a provider by its accounts)
    for (const r of entry.definition.searchRelated ?? []) {
      const other = model(r.model);
      w.orWhereIn('id', db(other.definition.table).select(other.definition.fields[r.field].columns[0])
        .where((x) => { for (const f of r.fields) x.orWhereRaw(`lower(??) like ? escape '\\'`, [other.definition.fields[f].columns[0], pattern]); }));
    }
    for (const name of entry.definition.search) {
      if (name.includes('.')) { relatedMatch(db, entry, name, pattern)(w); continue; }
      const field = entry.definition.fields[name];
      const column = field?.columns[0] ?? name;
      // A number field matches the whole number only (an ASN, a VLAN ID).
      if (field?.type === 'integer') { if (/^\d+$/.test(text)) w.orWhere(column, Number(text)); else w.orWhereRaw('1 = 0'); continue; }
      if (field?.type === 'ip_address') { addressStartsWith(w, column, text, postgres); continue; }
      textContains(w, db, entry.definition.table, column, text, postgres);
      // A network searches prefixes containing or equal to it too.
      if (network && field?.type === 'ip_prefix') {
        w.orWhere((x) => x.where('family', network.family).where(`${name}_first`, '<=', network.first).where(`${name}_last`, '>=', network.last).where(`${name}_length`, '<=', network.length));
      }
    }
  });
}
