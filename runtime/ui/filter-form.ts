/**
 * A list's filter form, loaded by htmx when the filter panel opens (so the list itself stays fast):
 * a select per choice field and per relation (`<relation>_id`), a tag box, built from the model's
 * filter set and showing the filters in force. A relation's select offers its first 100 objects
 * (the combobox searches the rest); the objects the URL filters by are added from one more read per
 * relation when they are not among them, so a filter in force always shows as chosen.
 */
import type { Context } from 'koa';
import { byContentType, choiceSet, modelList, storedField } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { callView } from './api-call.js';
import { listUrl } from './page.js';
import { renderTemplate, securityHeaders } from './render.js';
import type { ApiViews } from './api-views.js';

const OPTION_LIMIT = 100;

export async function filterForm(ctx: Context, entry: ModelEntry, api: ApiViews): Promise<void> {
  const params = ctx.URL.searchParams;
  const fields = [];
  for (const raw of Object.values(entry.definition.fields)) {
    const f = storedField(entry, raw);
    if (f.type === 'choice' && entry.filters[raw.name]) {
      const chosen = params.getAll(raw.name);
      fields.push({ name: raw.name, id: `filter-${raw.name}`, label: raw.label, options: choiceSet(f.choices!).choices.map((c) => ({ value: String(c.value), label: c.label, selected: chosen.includes(String(c.value)) })) });
    } else if (f.type === 'fk' && entry.filters[`${raw.name}_id`]) {
      const target = modelList.find((m) => m.definition.name === f.to);
      if (!target) continue;
      const result = await callView(ctx, api.get(target)!.list, { query: new URLSearchParams({ brief: '1', limit: String(OPTION_LIMIT) }) });
      if (!result.ok) continue;
      const chosen = params.getAll(`${raw.name}_id`);
      const options = (result.body.results as { id: number; display: string }[]).map((o) => ({ value: String(o.id), label: o.display, selected: chosen.includes(String(o.id)) }));
      const missing = [...new Set(chosen)].filter((id) => /^\d+$/.test(id) && !options.some((o) => o.value === id));
      if (missing.length) {
        const query = new URLSearchParams({ brief: '1', limit: String(missing.length) });
        for (const id of missing) query.append('id', id);
        const more = await callView(ctx, api.get(target)!.list, { query });
        // the chosen ones first: a select shows its first rows
        if (more.ok) options.unshift(...(more.body.results as { id: number; display: string }[]).map((o) => ({ value: String(o.id), label: o.display, selected: true })));
      }
      fields.push({ name: `${raw.name}_id`, id: `filter-${raw.name}`, label: raw.label, searchUrl: target.filters.q ? `/api/${target.definition.app}/${target.definition.endpoint}/` : undefined, options });
    }
  }
  const view = {
    listUrl: listUrl(entry),
    fields,
    tagged: entry.definition.tags && !!byContentType.get('extras.tag'),
    tag: params.get('tag') ?? '',
    q: params.get('q') ?? '',
    perPage: params.get('per_page') ?? '',
  };
  securityHeaders(ctx);
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = renderTemplate('filter-form', view);
}
