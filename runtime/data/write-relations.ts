/**
 * The relations a request names (ids, attribute dictionaries, tag slugs), resolved in batches. Every
 * value is checked against what its column can hold before it reaches a query: PostgreSQL refuses to
 * compare an id column with 99999999999 or a number column with 'abc' (an error, where SQLite finds
 * nothing), so such a value is simply an object that cannot exist, named under the field.
 */
import type { Knex } from 'knex';
import { ErrorCollector } from '../core/errors.js';
import { isStorableId } from '../core/ids.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { model } from './registry.js';
import type { FieldDefinition } from '../core/types.js';
import { describe, scalarValue } from './write-values.js';
import type { Prepared, Ref } from './write-input.js';
import { CHUNK } from './write-context.js';
import { whereAny } from './any.js';
import { idsOfEach } from './together.js';
import { isPostgres } from './db.js';

/** A relation given as an id: a whole number, or a string of digits (as NetBox casts it). */
function numericId(value: unknown): { id: number; text: string } | null {
  if (typeof value === 'number' && Number.isInteger(value)) return { id: value, text: String(value) };
  if (typeof value === 'string' && /^\d+$/.test(value)) return { id: Number(value), text: value };
  return null;
}

/** Scalar types whose lookup value is checked (and converted) as a write of that field would be. */
const SCALAR = new Set(['string', 'text', 'slug', 'color', 'mac', 'integer', 'decimal', 'boolean', 'date', 'datetime', 'choice']);
const TEXT = new Set(['string', 'text', 'slug', 'color']);

/**
 * The column value an attribute lookup compares with, or why none can match: ids and relations take
 * an id a row can have, scalars a value their field accepts (so `{"latitude": "abc"}` or an integer
 * beyond its column finds nothing instead of failing the query), addresses a valid network.
 */
function lookupValue(f: FieldDefinition, value: unknown): { value: string | number | boolean } | { reason: string } {
  if (f.type === 'fk' || f.columns[0] === 'id') {
    const n = numericId(value);
    return n && isStorableId(n.id) ? { value: n.id } : { reason: `${f.name}: no object has the id ${describe(value)}.` };
  }
  if (f.type === 'ip_prefix' || f.type === 'ip_address') {
    const n = typeof value === 'string' ? parseNetwork(value) : null;
    return n ? { value: f.type === 'ip_prefix' ? networkText(n) : n.text } : { reason: `${f.name}: not a valid ${f.type === 'ip_prefix' ? 'prefix' : 'IP address'}.` };
  }
  if (!SCALAR.has(f.type) || typeof value === 'object') return { reason: `${f.name}: cannot be looked up by this value.` };
  const errs = new ErrorCollector();
  const converted = scalarValue({ ...f, required: false }, value, errs);
  if (!errs.empty) return { reason: `${f.name}: ${Object.values(errs.errors).flat().join(' ')}` };
  // Text is compared as sent (a write would trim it; a lookup of ' dc1 ' finds no 'dc1', as in NetBox).
  return { value: TEXT.has(f.type) ? String(value) : converted as string | number | boolean };
}

/** Finds the one object an attribute dictionary names (nested dictionaries follow relations). */
async function resolveByAttributes(db: Knex, targetName: string, attrs: Record<string, unknown>): Promise<{ id?: number; error?: string }> {
  const target = model(targetName);
  const notFound = (reason?: string) => ({ error: `Related object not found using the provided attributes: ${describe(attrs)}${reason ? ` (${reason})` : ''}` });
  const q = db(target.definition.table).select('id').limit(2);
  for (const [key, value] of Object.entries(attrs)) {
    const f = target.definition.fields[key === 'device_role' ? 'role' : key] ?? (key === 'id' ? { name: 'id', columns: ['id'], type: 'integer' } as unknown as FieldDefinition : undefined);
    if (!f || !f.columns.length) return notFound();
    if (f.type === 'fk' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const inner = await resolveByAttributes(db, f.to!, value as Record<string, unknown>);
      if (inner.error) return inner;
      q.where(f.columns[0], inner.id!);
    } else if (value === null) q.whereNull(f.columns[0]);
    else {
      const lookup = lookupValue(f, value);
      if ('reason' in lookup) return notFound(lookup.reason);
      q.where(f.columns[0], lookup.value);
    }
  }
  const rows = await q;
  if (rows.length === 0) return notFound();
  if (rows.length > 1) return { error: `Multiple objects match the provided attributes: ${describe(attrs)}` };
  return { id: Number(rows[0].id) };
}

/** Resolves every relation of the request: ids in one query per target model, attribute sets once each. */
export async function resolveRefs(db: Knex, refs: Ref[], items: Prepared[]): Promise<void> {
  const byTarget = new Map<string, Set<number>>();
  const byAttrs = new Map<string, { id?: number; error?: string }>();
  for (const ref of refs) {
    const numeric = numericId(ref.value);
    if (numeric && isStorableId(numeric.id)) {
      if (!byTarget.has(ref.target)) byTarget.set(ref.target, new Set());
      byTarget.get(ref.target)!.add(numeric.id);
    }
  }
  // Which of the named ids exist: one lookup per target model and chunk (one statement on PostgreSQL).
  const lookups: { target: string; query: Knex.QueryBuilder }[] = [];
  for (const [target, ids] of byTarget) {
    const list = [...ids];
    const per = isPostgres(db) ? list.length : CHUNK;
    for (let i = 0; i < list.length; i += per) lookups.push({ target, query: whereAny(db, db(model(target).definition.table).select('id'), 'id', list.slice(i, i + per)) });
  }
  const existing = new Map<string, Set<number>>([...byTarget.keys()].map((t) => [t, new Set<number>()]));
  (await idsOfEach(db, lookups.map((l) => l.query))).forEach((ids, i) => ids.forEach((id) => existing.get(lookups[i].target)!.add(id)));
  for (const ref of refs) {
    const v = ref.value;
    const errs = items[ref.item].errors;
    const numeric = numericId(v);
    if (numeric) {
      // An id no row can have (0, negative, beyond 32 bits) was never queried: it is not found either.
      if (existing.get(ref.target)?.has(numeric.id)) ref.apply(numeric.id);
      else errs.add(ref.field, `Related object not found using the provided numeric ID: ${numeric.text}`);
    } else if (typeof v === 'number') {
      errs.add(ref.field, `Related objects must be referenced by numeric ID or by dictionary of attributes. Received an unrecognized value: ${v}`);
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const key = `${ref.target}:${JSON.stringify(v)}`;
      if (!byAttrs.has(key)) byAttrs.set(key, await resolveByAttributes(db, ref.target, v as Record<string, unknown>));
      const found = byAttrs.get(key)!;
      if (found.error) errs.add(ref.field, found.error);
      else ref.apply(found.id!);
    } else if (ref.target === 'Tag' && typeof v === 'string') {
      const key = `Tag:slug:${v}`;
      if (!byAttrs.has(key)) byAttrs.set(key, await resolveByAttributes(db, 'Tag', { slug: v }));
      const found = byAttrs.get(key)!;
      if (found.error) errs.add(ref.field, found.error);
      else ref.apply(found.id!);
    } else errs.add(ref.field, `Incorrect type. Expected pk value, received ${typeof v}.`);
  }
}
