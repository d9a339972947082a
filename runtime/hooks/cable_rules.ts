/**
 * The rules a cable's terminations follow, shared by cables (written with a_terminations and
 * b_terminations) and by cable terminations written one by one: each object is of a cable-capable
 * type, exists, can take a cable (not a virtual or wireless interface, not a circuit termination on
 * a provider network), carries no other cable; one end holds one type; the two ends are compatible
 * types (each model's `cabling.peers`) and never the same object.
 */
import { isStorableId } from '../core/ids.js';
import type { Knex } from 'knex';
import { choiceSet, model, type Row, type WriteItem } from '../data/registry.js';
import { cabledModel, nodeKey } from './cable_paths.js';
import { createRows, deleteRows } from '../data/side-writes.js';
import type { ChangeContext } from '../data/changes.js';

export interface End {
  type: string;
  ids: number[];
}

/** Parses one side as sent: a list of {object_type, object_id}; records errors under `field`. */
export function parseEnd(item: WriteItem, field: string, value: unknown): End | null {
  if (!Array.isArray(value)) {
    item.errors.add(field, `Expected a list of items but got type "${value === null ? 'null' : typeof value}".`);
    return null;
  }
  const end: End = { type: '', ids: [] };
  for (const element of value) {
    const t = (element ?? {}) as Record<string, unknown>;
    if (typeof element !== 'object' || element === null || Array.isArray(element)) { item.errors.add(field, 'Each termination must be an object with object_type and object_id.'); return null; }
    const type = t.object_type;
    const id = typeof t.object_id === 'string' && /^\d+$/.test(t.object_id) ? Number(t.object_id) : t.object_id;
    if (typeof type !== 'string' || !cabledModel(type)) { item.errors.add(field, `"${String(type)}" is not a cable termination type.`); return null; }
    if (typeof id !== 'number' || !Number.isInteger(id)) { item.errors.add(field, 'object_id: a valid integer is required.'); return null; }
    // An id no row can have is never queried (PostgreSQL refuses to compare it with an id column).
    if (!isStorableId(id)) { item.errors.add(field, `${cabledModel(type)!.definition.verboseName} ${id} does not exist.`); return null; }
    if (end.type && end.type !== type) { item.errors.add(field, 'Cannot connect different termination types to same end of cable.'); return null; }
    end.type = type;
    if (!end.ids.includes(id)) end.ids.push(id);
  }
  return end;
}

const shortName = (type: string) => type.split('.').pop()!;

/** Checks that A and B fit each other (types compatible, not the same object). */
export function checkPair(item: WriteItem, a: End, b: End): void {
  if (!a.ids.length || !b.ids.length) return;
  const peers = cabledModel(a.type)!.definition.cabling!.peers;
  if (!peers.includes(b.type)) { item.errors.add('b_terminations', `Incompatible termination types: ${shortName(a.type)} and ${shortName(b.type)}`); return; }
  if (a.type === b.type && a.ids.some((id) => b.ids.includes(id))) item.errors.add('b_terminations', 'A and B terminations cannot connect to the same object.');
}

/**
 * Checks the objects of every end of a request against the database, in one query per type: they
 * exist, may be cabled, and carry no cable but `cable` (the cable being written; null for a new one).
 * Ends repeated across the request's elements are refused too.
 */
export async function checkObjects(db: Knex, ends: { item: WriteItem; field: string; end: End; cable: number | null }[]): Promise<void> {
  const byType = new Map<string, Set<number>>();
  for (const { end } of ends) for (const id of end.ids) byType.set(end.type, (byType.get(end.type) ?? new Set()).add(id));
  const rows = new Map<string, Row>();
  const taken = new Map<string, number>();
  for (const [type, ids] of byType) {
    const entry = cabledModel(type)!;
    const list = [...ids];
    for (let i = 0; i < list.length; i += 500) {
      for (const r of await db(entry.definition.table).whereIn('id', list.slice(i, i + 500))) rows.set(nodeKey(type, r.id), r);
      for (const ct of await db(model('CableTermination').definition.table).select('termination_id', 'cable_id').where('termination_type', type).whereIn('termination_id', list.slice(i, i + 500))) {
        taken.set(nodeKey(type, ct.termination_id), Number(ct.cable_id));
      }
    }
  }
  const claimed = new Map<string, WriteItem>();
  for (const { item, field, end, cable } of ends) {
    const entry = cabledModel(end.type)!;
    const d = entry.definition;
    for (const id of end.ids) {
      const key = nodeKey(end.type, id);
      const row = rows.get(key);
      if (!row) { item.errors.add(field, `${d.verboseName} ${id} does not exist.`); continue; }
      const owner = taken.get(key);
      if ((owner !== undefined && owner !== cable) || (claimed.has(key) && claimed.get(key) !== item)) {
        item.errors.add(field, `Duplicate termination found for ${end.type} ${id}: cable ${owner ?? '(this request)'}`);
      }
      claimed.set(key, item);
      const rule = d.cabling!.notCabled;
      const value = rule ? row[d.fields[rule.field].columns[0]] : undefined;
      if (rule && rule.values.includes(String(value))) {
        const f = d.fields[rule.field];
        const label = f.choices ? choiceSet(f.choices).choices.find((c) => c.value === value)?.label ?? value : value;
        item.errors.add(field, `Cables cannot be terminated to ${label} ${d.verboseName}s.`);
      }
      for (const name of d.cabling!.through?.terminus ?? []) {
        const t = d.fields[name];
        if (row[t.columns[0]] !== null && row[t.columns[0]] !== undefined) item.errors.add(field, `${d.verboseName.charAt(0).toUpperCase()}${d.verboseName.slice(1)}s attached to a ${model(t.to!).definition.verboseName} may not be cabled.`);
      }
    }
  }
}

/**
 * Makes the stored terminations of each cable exactly its ends: removes the others (clearing their
 * objects' cable), adds the new ones, and sets cable and cable_end on every terminated object. The
 * terminations are written through data/side-writes.ts, so each is change-logged as NetBox logs its
 * CableTerminations; the objects' own cable fields are not (NetBox updates them without a save).
 * Returns the nodes whose paths must be re-traced: the objects that left or joined.
 */
export async function setTerminations(target: { db: Knex; request?: ChangeContext | null }, cables: { cable: number; ends: Record<'A' | 'B', End | null> }[]): Promise<string[]> {
  const { db } = target;
  const entry = model('CableTermination');
  const existing: Row[] = [];
  const ids = cables.map((c) => c.cable);
  for (let i = 0; i < ids.length; i += 500) existing.push(...await db(entry.definition.table).whereIn('cable_id', ids.slice(i, i + 500)));
  const changed: string[] = [];
  const stale: Row[] = [];
  const fresh: Row[] = [];
  const now = new Date().toISOString();
  for (const { cable, ends } of cables) {
    const mine = existing.filter((ct) => Number(ct.cable_id) === cable);
    for (const side of ['A', 'B'] as const) {
      const end = ends[side];
      if (!end) continue;
      const wanted = new Set(end.ids.map((id) => nodeKey(end.type, id)));
      stale.push(...mine.filter((ct) => ct.cable_end === side && !wanted.has(nodeKey(ct.termination_type, ct.termination_id))));
      const have = new Set(mine.filter((ct) => ct.cable_end === side).map((ct) => nodeKey(ct.termination_type, ct.termination_id)));
      for (const id of end.ids.filter((id) => !have.has(nodeKey(end.type, id)))) {
        fresh.push({ cable_id: cable, cable_end: side, termination_type: end.type, termination_id: id, created: now, last_updated: now });
        changed.push(nodeKey(end.type, id));
      }
    }
  }
  for (const ct of stale) {
    changed.push(nodeKey(ct.termination_type, ct.termination_id));
    await db(cabledModel(ct.termination_type)!.definition.table).where('id', ct.termination_id).update({ cable_id: null, cable_end: null });
  }
  await deleteRows(target, entry, stale.map((ct) => Number(ct.id)));
  await createRows(target, entry, fresh);
  for (const { cable, ends } of cables) {
    for (const side of ['A', 'B'] as const) {
      const end = ends[side];
      if (end?.ids.length) await db(cabledModel(end.type)!.definition.table).whereIn('id', end.ids).update({ cable_id: cable, cable_end: side });
    }
  }
  return changed;
}
