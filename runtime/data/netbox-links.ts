/**
 * NetBox's link tables as the import (netbox-import.ts) reads them: a row's object types from the
 * table that lists them, and the two id columns of a many-to-many table.
 */
import type { NetboxSource } from './netbox-source.js';

/** The object types (`app.model` list) of a row from NetBox's link table of them. */
export async function objectTypeLists(source: NetboxSource, table: string, column: string, base: string): Promise<Map<number, string[]> | null> {
  for (const [link, target] of [[`${table}_${column}`, 'contenttype_id'], [`${table}_object_types`, 'objecttype_id'], [`${table}_content_types`, 'contenttype_id']]) {
    const cols = source.tables.get(link);
    if (!cols?.has(target)) continue;
    const owner = `${base}_id`;
    const out = new Map<number, string[]>();
    for await (const rows of source.rows(link, 10_000)) {
      for (const r of rows) {
        const name = source.contentTypes.get(Number(r[target]));
        if (name) out.set(Number(r[owner]), [...(out.get(Number(r[owner])) ?? []), name]);
      }
    }
    return out;
  }
  return null;
}

/** The id columns of NetBox's many-to-many table: (owner, target). */
export function linkColumns(cols: Set<string>, owner: string): [string, string] | null {
  const ids = [...cols].filter((c) => c !== 'id' && c.endsWith('_id'));
  if (ids.length !== 2) return null;
  const first = ids.includes(`${owner}_id`) ? `${owner}_id` : ids.includes(`from_${owner}_id`) ? `from_${owner}_id` : null;
  return first ? [first, ids.find((c) => c !== first)!] : null;
}
