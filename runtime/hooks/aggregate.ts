/**
 * Aggregates never overlap: a new or moved aggregate may neither lie inside another one nor contain
 * one. Both checks are range queries on the indexed bounds.
 */
import type { ModelHooks } from '../data/registry.js';

export const aggregate: ModelHooks = {
  async prepare(item, { db }) {
    if (!('prefix' in item.values)) return;
    const v = item.values;
    const others = () => {
      const q = db('ipam_aggregate').select('prefix').where('family', v.family);
      if (item.id !== null) q.whereNot('id', item.id);
      return q;
    };
    const covering = await others().where('prefix_first', '<=', v.prefix_first).where('prefix_last', '>=', v.prefix_last).first();
    if (covering) { item.errors.add('prefix', `Aggregates cannot overlap: ${v.prefix} is already covered by the aggregate ${covering.prefix}.`); return; }
    const covered = await others().where('prefix_first', '>=', v.prefix_first).where('prefix_last', '<=', v.prefix_last).first();
    if (covered) item.errors.add('prefix', `Aggregates cannot overlap: ${v.prefix} covers the existing aggregate ${covered.prefix}.`);
  },
};
