/** Choice sets of custom fields: extra_choices is a non-empty list of [value, label] pairs. */
import type { ModelHooks } from '../data/registry.js';

export const customFieldChoiceSet: ModelHooks = {
  computed: {
    async choice_set_count(rows) {
      return new Map(rows.map((r) => [Number(r.id), (JSON.parse(r.extra_choices ?? '[]') as unknown[]).length]));
    },
  },
  prepare(item) {
    if (item.values.extra_choices === undefined) return;
    const choices = JSON.parse(item.values.extra_choices);
    const ok = Array.isArray(choices) && choices.length > 0 && choices.every((c) => Array.isArray(c) && c.length === 2 && c.every((x) => typeof x === 'string' || typeof x === 'number'));
    if (!ok) item.errors.add('extra_choices', 'Give a non-empty list of [value, label] pairs.');
  },
};
