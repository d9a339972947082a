/**
 * `/dcim/rack-elevations/`: many racks side by side, each drawn as on its own page (the API's
 * elevation action, `?render=svg`), the front or the rear (`?face=rear`). The racks are the rack
 * list's: its filters (site_id, location_id, role_id, any other) and its paging (page, per_page).
 */
import { modelList } from '../data/registry.js';
import { ELEVATION_HOOK as HOOK, elevatedModel, RACK_ELEVATIONS } from './elevated.js';
import { callView, errorText } from './api-call.js';
import { getAction } from './hook-view.js';
import { apiQuery, PAGE_SIZES, withParams } from './list.js';
import { label, listUrl, may } from './page.js';
import { sendPage } from './render.js';
import type { UiContext } from './context.js';

export { RACK_ELEVATIONS };

/** the filters offered as selects, each the rack relation it filters by */
const FILTERS = ['site', 'location', 'role'];
const CHOICE_LIMIT = 500;

/** Serves the page; false when the path is another. */
export async function rackElevationsPage(ui: UiContext): Promise<boolean> {
  const { ctx, services, page, api } = ui;
  if (ctx.path !== RACK_ELEVATIONS) return false;
  const racks = elevatedModel();
  if (!racks || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  if (!may(ctx, racks, 'view', services)) {
    sendPage(ctx, { ...page, title: 'Forbidden' }, 'message', { heading: 'Forbidden', text: 'You do not have permission to do this.' }, 403);
    return true;
  }
  const params = new URLSearchParams(ctx.URL.searchParams);
  const face = params.get('face') === 'rear' ? 'rear' : 'front';
  params.delete('face');
  const { query, page: pageNumber, perPage } = apiQuery(params);
  query.set('brief', '1');
  const listed = await callView(ctx, api.get(racks)!.list, { query, path: `/api/${racks.definition.app}/${racks.definition.endpoint}/` });
  const rows = listed.ok ? (listed.body.results as Record<string, any>[]) : [];
  const count = listed.ok ? Number(listed.body.count) : 0;
  const pages = Math.max(1, Math.ceil(count / perPage));
  const drawn = [];
  for (const rack of rows) {
    const result = await getAction(ctx, services, racks, HOOK, Number(rack.id), new URLSearchParams({ face, render: 'svg', unit_width: '200', unit_height: '20' }));
    drawn.push({
      name: rack.display ?? rack.name,
      url: `${listUrl(racks)}${rack.id}/`,
      svg: result?.ok ? String(result.body).replace(/https?:\/\/[^/"]+\/dcim\//g, '/dcim/') : '',
    });
  }
  // The selects of the filter form: each relation's objects, the chosen one selected.
  const filters = [];
  for (const name of FILTERS) {
    const field = racks.definition.fields[name];
    const target = field?.type === 'fk' ? modelList.find((m) => m.definition.name === field.to) : undefined;
    if (!target || !may(ctx, target, 'view', services)) continue;
    const chosen = ctx.URL.searchParams.getAll(`${name}_id`);
    const options = await callView(ctx, api.get(target)!.list, { query: new URLSearchParams({ brief: '1', limit: String(CHOICE_LIMIT) }) });
    filters.push({
      param: `${name}_id`,
      label: field!.label,
      options: (options.ok ? (options.body.results as Record<string, any>[]) : []).map((o) => ({ value: String(o.id), text: o.display, selected: chosen.includes(String(o.id)) })),
    });
  }
  const base = new URLSearchParams(ctx.URL.searchParams);
  base.delete('page');
  const view = {
    heading: 'Rack elevations',
    listUrl: listUrl(racks),
    plural: label(racks, true),
    error: listed.ok ? null : errorText(listed.error),
    face,
    rear: face === 'rear',
    frontUrl: withParams(base, { face: null }),
    rearUrl: withParams(base, { face: 'rear' }),
    filters,
    perPage,
    pageSizes: PAGE_SIZES.map((n) => ({ n, selected: n === perPage })),
    racks: drawn,
    empty: !drawn.length,
    count,
    pageNumber,
    pages,
    prevUrl: pageNumber > 1 ? withParams(base, { page: String(pageNumber - 1) }) : null,
    nextUrl: pageNumber < pages ? withParams(base, { page: String(pageNumber + 1) }) : null,
  };
  sendPage(ctx, { ...page, title: view.heading }, 'rack-elevations', view);
  return true;
}
