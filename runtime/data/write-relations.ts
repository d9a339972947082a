/** The relations a request names (ids, attribute dictionaries, tag slugs), resolved in batches. */
import type { Knex } from 'knex';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { model } from './registry.js';
import type { FieldDefinition } from '../core/types.js';
import { describe } from './write-values.js';
import type { Prepared, Ref } from './write-input.js';
import { CHUNK } from './write-context.js';

/** Finds the one object an attribute dictionary names (nested dictionaries follow relations). */
async function resolveByAttributes(db: Knex, targetName: string, attrs: Record<string, unknown>): Promise<{ id?: number; error?: string }> {
  const target = model(targetName);
  const q = db(target.definition.table).select('id').limit(2);
  for (const [key, value] of Object.entries(attrs)) {
    const f = target.definition.fields[key === 'device_role' ? 'role' : key] ?? (key === 'id' ? { columns: ['id'], type: 'integer' } as unknown as FieldDefinition : undefined);
    if (!f || !f.columns.length) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    if (f.type === 'fk' && value !== null && typeof value === 'object') {
      const inner = await resolveByAttributes(db, f.to!, value as Record<string, unknown>);
      if (inner.error) return inner;
      q.where(f.columns[0], inner.id!);
    } else if (value === null) q.whereNull(f.columns[0]);
    else if (f.type === 'ip_prefix' || f.type === 'ip_address') {
      const n = parseNetwork(String(value));
      if (!n) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
      q.where(f.columns[0], f.type === 'ip_prefix' ? networkText(n) : n.text);
    } else if (typeof value === 'object') return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    else if ((f.type === 'integer' || f.columns[0] === 'id') && !/^-?\d+$/.test(String(value))) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    else q.where(f.columns[0], value as string | number);
  }
  const rows = await q;
  if (rows.length === 0) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
  if (rows.length > 1) return { error: `Multiple objects match the provided attributes: ${describe(attrs)}` };
  return { id: Number(rows[0].id) };
}

/** Resolves every relation of the request: ids in one query per target model, attribute sets once each. */
export async function resolveRefs(db: Knex, refs: Ref[], items: Prepared[]): Promise<void> {
  const byTarget = new Map<string, Set<number>>();
  const byAttrs = new Map<string, { id?: number; error?: string }>();
  for (const ref of refs) {
    const v = ref.value;
    const numeric = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
    if (numeric !== null) {
      if (!byTarget.has(ref.target)) byTarget.set(ref.target, new Set());
      byTarget.get(ref.target)!.add(numeric);
    }
  }
  const existing = new Map<string, Set<number>>();
  for (const [target, ids] of byTarget) {
    const found = new Set<number>();
    const list = [...ids];
    for (let i = 0; i < list.length; i += CHUNK) {
      for (const r of await db(model(target).definition.table).select('id').whereIn('id', list.slice(i, i + CHUNK))) found.add(Number(r.id));
    }
    existing.set(target, found);
  }
  for (const ref of refs) {
    const v = ref.value;
    const errs = items[ref.item].errors;
    const numeric = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
    if (numeric !== null) {
      if (existing.get(ref.target)!.has(numeric)) ref.apply(numeric);
      else errs.add(ref.field, `Related object not found using the provided numeric ID: ${numeric}`);
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
