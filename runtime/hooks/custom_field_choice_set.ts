/**
 * Choice sets of custom fields: a base list of predefined choices (`base_choices`: airport or
 * country codes), extra [value, label] pairs, or both; a set offers the base choices followed by
 * the extra ones, by value when order_alphabetically is set (as NetBox orders them).
 */
import type { ActionContext, ModelHooks } from '../data/registry.js';
import { isPostgres } from '../data/db.js';
import { baseChoiceHas, baseChoices, hasBaseChoices, type ChoicePair } from '../data/base-choices.js';

const BASE_LISTS = ['IATA', 'ISO_3166', 'UN_LOCODE'];

function extraOf(row: Record<string, any>): ChoicePair[] {
  const list = JSON.parse(row.extra_choices ?? 'null') as unknown[][] | null;
  return (list ?? []).map(([v, l]) => [String(v), String(l)]);
}

const byValue = (a: ChoicePair, b: ChoicePair) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * The set's choices in the order a client sees them, one at a time: a base list has thousands of
 * entries (already sorted by value), so it is walked, never copied per request; ordered sets
 * merge the sorted extra choices into it.
 */
function* choicesOf(row: Record<string, any>): Generator<ChoicePair> {
  const base = baseChoices(row.base_choices);
  const extra = extraOf(row);
  const ordered = row.order_alphabetically === true || row.order_alphabetically === 1 || row.order_alphabetically === '1';
  if (!ordered) { yield* base; yield* extra; return; }
  extra.sort(byValue);
  let j = 0;
  for (const pair of base) {
    while (j < extra.length && byValue(extra[j], pair) < 0) yield extra[j++];
    yield pair;
  }
  while (j < extra.length) yield extra[j++];
}

async function choiceSetChoices(ctx: ActionContext) {
  const q = ctx.query.get('q')?.toLowerCase();
  const { page } = ctx;
  const end = page.limit === null ? Infinity : page.offset + page.limit;
  const shown: { id: string; display: string }[] = [];
  let count = 0;
  for (const [v, l] of choicesOf(ctx.row)) {
    if (q && !v.toLowerCase().includes(q) && !l.toLowerCase().includes(q)) continue;
    if (count >= page.offset && count < end) shown.push({ id: v, display: l });
    count++;
  }
  const links = page.links(`${ctx.baseUrl}/api/extras/custom-field-choice-sets/${ctx.row.id}/choices/`, ctx.query, count);
  return { status: 200, body: { count, ...links, results: shown } };
}

export const customFieldChoiceSet: ModelHooks = {
  filters: {
    /** `?choice=gold`: the sets offering a choice of that value, as an extra choice or from their base list */
    choice_set_choice(qb, values, { db, table }) {
      const pairs = isPostgres(db) ? `jsonb_array_elements(${table}.extra_choices::jsonb) as pair where pair.value->>0` : `json_each(${table}.extra_choices) as pair where json_extract(pair.value, '$[0]')`;
      const bases = BASE_LISTS.filter((b) => values.some((v) => baseChoiceHas(b, v)));
      qb.where((w) => {
        w.whereRaw(`exists (select 1 from ${pairs} in (${values.map(() => '?').join(', ')}))`, values);
        if (bases.length) w.orWhereIn(`${table}.base_choices`, bases);
      });
    },
  },
  computed: {
    async choice_set_count(rows) {
      return new Map(rows.map((r) => [Number(r.id), baseChoices(r.base_choices).length + extraOf(r).length]));
    },
  },
  actions: { choice_set_choices: choiceSetChoices },
  prepare(item) {
    const { values, errors } = item;
    if (values.base_choices && !hasBaseChoices(values.base_choices)) {
      errors.add('base_choices', `The ${values.base_choices} list of choices is not available on this server (no maintained package provides its data).`);
    }
    if (values.extra_choices !== undefined && values.extra_choices !== null) {
      const choices = JSON.parse(values.extra_choices);
      const ok = Array.isArray(choices) && choices.every((c) => Array.isArray(c) && c.length === 2 && c.every((x) => typeof x === 'string' || typeof x === 'number'));
      if (!ok) return errors.add('extra_choices', 'Give a list of [value, label] pairs.');
    }
    const merged = { ...(item.existing ?? {}), ...values };
    if (!merged.base_choices && !extraOf(merged).length) errors.add('extra_choices', 'Must define base or extra choices.');
  },
};
