/**
 * Module types' attributes (NetBox 4.3): a write of `attributes` on an existing module type adds to
 * the stored ones (a key at a time, as NetBox's serializer merges them); the result must conform to
 * the profile's schema (core/json-schema.ts), and a module type without a profile, or whose profile
 * has no schema, has none.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { valueProblem } from '../core/json-schema.js';

/** A json column's value as stored or as about to be written (JSON text), parsed; null stays null. */
export function jsonValue(v: unknown): any {
  if (typeof v !== 'string') return v ?? null;
  try { return JSON.parse(v); } catch { return v; }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const moduleType: ModelHooks = {
  async prepareMany(items, { db }) {
    const touched = items.filter((i) => 'profile_id' in i.values || 'attributes' in i.values);
    if (!touched.length) return;
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const profileIds = [...new Set(touched.map((i) => pick(i, 'profile_id')).filter((id) => id != null))];
    const profiles = new Map(profileIds.length ? (await db(model('ModuleTypeProfile').definition.table).whereIn('id', profileIds).select('id', 'schema')).map((p) => [Number(p.id), jsonValue(p.schema)]) : []);
    for (const item of touched) {
      let attributes = jsonValue(pick(item, 'attributes'));
      const stored = item.existing ? jsonValue(item.existing.attributes) : null;
      if ('attributes' in item.values && isObject(attributes) && Object.keys(attributes).length && isObject(stored)) attributes = { ...stored, ...attributes };
      const profileId = pick(item, 'profile_id');
      const schema = profileId == null ? null : profiles.get(Number(profileId));
      if (!isObject(schema)) {
        item.values.attributes = null;
        continue;
      }
      const problem = valueProblem(attributes ?? {}, schema);
      if (problem) item.errors.add('attributes', `Invalid schema: ${problem}`);
      else item.values.attributes = attributes === null ? null : JSON.stringify(attributes);
    }
  },
};
