/** Choice sets of custom fields: extra_choices is a non-empty list of [value, label] pairs. */
import type { ActionContext, ModelHooks } from '../data/registry.js';
import { isPostgres } from '../data/db.js';

type Pair = [string, string];

/** The set's choices in the order a client sees them (by label when order_alphabetically is set). */
function choicesOf(row: Record<string, any>): Pair[] {
  const pairs = (JSON.parse(row.extra_choices ?? '[]') as unknown[][]).map(([v, l]) => [String(v), String(l)] as Pair);
  return row.order_alphabetically ? pairs.sort((a, b) => a[1].localeCompare(b[1])) : pairs;
}

async function choiceSetChoices(ctx: ActionContext) {
  const q = ctx.query.get('q')?.toLowerCase();
  const all = choicesOf(ctx.row).filter(([v, l]) => !q || v.toLowerCase().includes(q) || l.toLowerCase().includes(q));
  const { page } = ctx;
  const shown = page.limit === null ? all.slice(page.offset) : all.slice(page.offset, page.offset + page.limit);
  const links = page.links(`${ctx.baseUrl}/api/extras/custom-field-choice-sets/${ctx.row.id}/choices/`, ctx.query, all.length);
  return { status: 200, body: { count: all.length, ...links, results: shown.map(([id, display]) => ({ id, display })) } };
}

export const customFieldChoiceSet: ModelHooks = {
  filters: {
    /** `?choice=gold`: the sets offering a choice of that value */
    choice_set_choice(qb, values, { db, table }) {
      const pairs = isPostgres(db) ? `jsonb_array_elements(${table}.extra_choices::jsonb) as pair where pair.value->>0` : `json_each(${table}.extra_choices) as pair where json_extract(pair.value, '$[0]')`;
      qb.whereRaw(`exists (select 1 from ${pairs} in (${values.map(() => '?').join(', ')}))`, values);
    },
  },
  computed: {
    async choice_set_count(rows) {
      return new Map(rows.map((r) => [Number(r.id), (JSON.parse(r.extra_choices ?? '[]') as unknown[]).length]));
    },
  },
  actions: { choice_set_choices: choiceSetChoices },
  prepare(item) {
    if (item.values.extra_choices === undefined) return;
    const choices = JSON.parse(item.values.extra_choices);
    const ok = Array.isArray(choices) && choices.length > 0 && choices.every((c) => Array.isArray(c) && c.length === 2 && c.every((x) => typeof x === 'string' || typeof x === 'number'));
    if (!ok) item.errors.add('extra_choices', 'Give a non-empty list of [value, label] pairs.');
  },
};
