/**
 * The tabs of an object's page the schema declares (`ui.tabs`): each lists another model's rows that
 * the API's filters find from this object's values (a device's interfaces by `device_id`, a prefix's
 * children by `within`), as a table with that model's columns, checkboxes for its bulk actions and
 * an Add button that fills in this object, 100 rows a page (`page`, `per_page`). A tab shows only when it has rows (or is open, or its
 * view shows more than the rows: free space to add to, or it has an Add button of its own: Add a contact). A tab's `view` (runtime/ui/tab-views/) adds
 * to the rows: free space between them, their depth, utilization, header actions; a tab without one
 * adds the columns the listed model's own list adds (`ui.column_views`).
 */
import type { Context } from 'koa';
import { modelList } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { callView } from './api-call.js';
import { listCount } from './list-count.js';
import { cell, plain } from './values.js';
import { label, listUrl, may, type Page } from './page.js';
import { sendPage } from './render.js';
import { columnLabel, columnsOf, PAGE_SIZES, withParams } from './list.js';
import { cableModel } from './cabling.js';
import type { Services, State } from '../http/views.js';
import type { ApiViews } from './api-views.js';
import { tabViews } from './tab-views/index.js';
import { columnViews } from './column-views/index.js';
import type { TabRow } from './tab-view.js';

type Tab = NonNullable<ModelEntry['definition']['ui']>['tabs'][number];
/** rows per page of a tab, unless `per_page` says otherwise (one of the lists' page sizes) */
const TAB_PAGE_SIZE = 100;

function pageLink(params: URLSearchParams, page: number): string {
  return withParams(params, { page: String(page) });
}

/**
 * A view's rows cut to the page: the neighbours (rows marked `edge`) came back in place, with the
 * free space the view put beside them. Free space shows on the page of the row it precedes (after
 * the last row: the last page), so what lies up to the row before the page belongs to earlier pages,
 * and the free space before the row after the page, and all that follows, to later ones.
 */
function withinPage(rows: TabRow[], hasBefore: boolean, hasAfter: boolean): TabRow[] {
  let from = 0;
  let to = rows.length;
  if (hasBefore) from = rows.findIndex((r) => r.edge) + 1;
  if (hasAfter) for (let i = rows.length - 1; i >= from; i--) if (rows[i].edge) { to = i; break; }
  // free space goes with the row after it: what lies just before the next page's first row is shown there
  if (hasAfter) while (to > from && rows[to - 1].free) to--;
  return rows.slice(from, to);
}

export interface TabLink { label: string; url: string; count: number; active: boolean }

function modelNamed(name: string): ModelEntry | undefined {
  return modelList.find((m) => m.definition.name === name);
}

/** A path into the API representation (`vrf.id`); an unset value filters by null. */
function valueAt(object: Record<string, any>, path: string): string {
  let v: any = object;
  for (const part of path.split('.')) v = v == null ? v : typeof v === 'object' && 'value' in v && 'label' in v && part !== 'value' ? v.value?.[part] : v[part];
  return v === null || v === undefined || v === '' ? 'null' : String(v);
}

/** A tab's API filters: each a path into the object, or a literal after `=` (a generic relation's type). */
function tabQuery(tab: Tab, object: Record<string, any>): URLSearchParams {
  return new URLSearchParams(Object.entries(tab.filter).map(([param, path]) => [param, path.startsWith('=') ? path.slice(1) : valueAt(object, path)]));
}

export function tabsOf(entry: ModelEntry): Tab[] {
  return entry.definition.ui?.tabs ?? [];
}

/**
 * The tab bar: each declared tab the user may read with its count; empty ones are left out unless
 * open. The open tab's count is the one its table already has (`openCount`), not counted again.
 */
export async function tabLinks(ctx: Context, services: Services, api: ApiViews, entry: ModelEntry, object: Record<string, any>, open: string | null, openCount?: number): Promise<TabLink[]> {
  const out: TabLink[] = [];
  for (const tab of tabsOf(entry)) {
    const other = modelNamed(tab.model);
    if (!other || !may(ctx, other, 'view', services)) continue;
    let count = openCount ?? 0;
    if (open !== tab.path || openCount === undefined) {
      count = await listCount(ctx, api, other, tabQuery(tab, object));
    }
    // a tab with an Add button of its own (Add a contact) shows while the user may add there
    const addable = !!tab.addLabel && may(ctx, other, 'add', services) && !other.definition.readOnly;
    if (count || open === tab.path || tab.view || addable) out.push({ label: tab.label ?? label(other, true), url: `${listUrl(entry)}${object.id}/${tab.path}/`, count, active: open === tab.path });
  }
  return out;
}

/** A cabled model's rows get a Trace link and, while free, a Connect link (a cable form with this row as its A side). */
function cableLinksFor(ctx: Context, services: Services, other: ModelEntry, here: string): ((r: Record<string, any>) => { traceUrl: string; connectUrl: string | null }) | null {
  if (!other.definition.cabling) return null;
  const cable = cableModel();
  const canCable = !!cable && may(ctx, cable, 'add', services) && !cable.definition.readOnly;
  return (r) => ({
    traceUrl: `${listUrl(other)}${r.id}/trace/`,
    connectUrl: canCable && !r._occupied ? `${listUrl(cable!)}add/?${new URLSearchParams({ a_terminations_type: other.definition.contentType, a_terminations: String(r.id), return_url: here })}` : null,
  });
}

/**
 * What a tab's Add button fills in on the other model's add form: the relation to this object, by id,
 * or a generic relation's type and id (a contact assignment's object_type and object_id).
 */
function addValues(other: ModelEntry, add: string, entry: ModelEntry, object: Record<string, any>): Record<string, string> {
  if (other.definition.fields[add]?.type === 'generic_fk') return { [`${add}_type`]: entry.definition.contentType, [`${add}_id`]: String(object.id) };
  return { [add]: String(object.id) };
}

function related(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'url' in value;
}

/** `/<app>/<endpoint>/<id>/<tab>/`: the tab's table. */
export async function tabPage(ctx: Context, services: Services, page: Page, entry: ModelEntry, api: ApiViews, object: Record<string, any>, tab: Tab, header: Record<string, unknown>): Promise<void> {
  const other = modelNamed(tab.model)!;
  if (!may(ctx, other, 'view', services)) {
    sendPage(ctx, { ...page, title: 'Forbidden' }, 'message', { heading: 'Forbidden', text: 'You do not have permission to do this.' }, 403);
    return;
  }
  const here = `${listUrl(entry)}${object.id}/${tab.path}/`;
  const query = tabQuery(tab, object);
  const tabView = tab.view ? tabViews[tab.view] : undefined;
  // The object the tab belongs to is the same in every row: its column is left out.
  const columns = columnsOf(other).filter((c) => c !== tab.add && !(c in tab.filter) && `${c}_id` in tab.filter === false);
  const shown = new Set(['id', 'url', 'display', ...columns, ...(tabView?.fields ?? []), ...(other.definition.cabling ? ['cable', '_occupied'] : [])]);
  query.set('exclude', other.serializer.full.filter((f) => !shown.has(f)).join(','));
  // A page of rows; a view that reads the neighbours also gets the row before the page and the one after it.
  const params = ctx.URL.searchParams;
  const perPage = PAGE_SIZES.includes(Number(params.get('per_page'))) ? Number(params.get('per_page')) : TAB_PAGE_SIZE;
  const pageNumber = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const start = (pageNumber - 1) * perPage;
  const neighbours = !!tabView?.readsNeighbours;
  const before = neighbours && start > 0 ? 1 : 0;
  query.set('offset', String(start - before));
  query.set('limit', String(perPage + before + (neighbours ? 1 : 0)));
  const result = await callView(ctx, api.get(other)!.list, { query });
  const fetched = result.ok ? (result.body.results as Record<string, any>[]) : [];
  const rows = fetched.slice(before, before + perPage);
  const edges = new Set([...fetched.slice(0, before), ...fetched.slice(before + perPage)]);
  const canChange = may(ctx, other, 'change', services) && !other.definition.readOnly;
  const canDelete = may(ctx, other, 'delete', services) && !other.definition.readOnly;
  const canAdd = !!tab.add && may(ctx, other, 'add', services) && !other.definition.readOnly;
  const tabLabel = tab.label ?? label(other, true);
  const cableLinks = cableLinksFor(ctx, services, other, here);
  const count = result.ok ? Number(result.body.count) : 0;
  const build = (r: Record<string, any>): TabRow => ({
    ...cableLinks?.(r),
    id: r.id,
    display: r.display,
    url: `${listUrl(other)}${r.id}/`,
    // the first cell links to the row, unless it is a relation, which links to its own object (a contact)
    cells: columns.map((c, i) => ({ first: i === 0 && !related(r[c]), ...cell(r[c]), value: i === 0 ? plain(r[c]) || String(r.display ?? r.id) : '' })),
    ...(edges.has(r) ? { edge: true } : {}),
  });
  let built: TabRow[] = rows.map(build);
  let extraColumns: string[] = [];
  let actions: { label: string; url: string }[] = [];
  if (tabView) {
    const done = neighbours
      ? await tabView.render({ ctx, services, api, entry, object, other, rows: fetched, built: fetched.map(build), here, complete: fetched.length < perPage + before + 1 })
      : await tabView.render({ ctx, services, api, entry, object, other, rows, built, here, complete: count <= rows.length });
    built = neighbours ? withinPage(done.rows, before > 0, fetched.length > before + perPage) : done.rows;
    extraColumns = done.columns ?? [];
    actions = done.actions ?? [];
  } else {
    // Without a view of its own, the tab adds the columns the listed model's list adds (utilization).
    const added = (other.definition.ui?.columnViews ?? []).map((name) => columnViews[name]);
    const db = (ctx.state as State).readDb ?? services.db;
    const cells = await Promise.all(added.map((v) => v.render(db, rows)));
    if (added.length) built = built.map((row, i) => ({ ...row, extra: cells.map((c) => c[i]) }));
    extraColumns = added.map((v) => v.label);
  }
  const view = {
    ...header,
    tabs: await tabLinks(ctx, services, api, entry, object, tab.path, result.ok ? count : undefined),
    tabObject: false,
    tabTable: true,
    tabLabel,
    count,
    more: count > rows.length,
    moreUrl: `${listUrl(other)}?${tabQuery(tab, object)}`,
    pageNumber,
    pages: Math.max(1, Math.ceil(count / perPage)),
    paged: count > perPage,
    prevUrl: pageNumber > 1 ? pageLink(params, pageNumber - 1) : null,
    nextUrl: start + perPage < count ? pageLink(params, pageNumber + 1) : null,
    tabUrl: here,
    perPage: params.has('per_page') ? perPage : null,
    pageSizes: PAGE_SIZES.map((n) => ({ n, selected: n === perPage })),
    bulkUrl: `${listUrl(other)}bulk/`,
    returnUrl: here,
    addUrl: canAdd ? `${listUrl(other)}add/?${new URLSearchParams({ ...addValues(other, tab.add!, entry, object), return_url: here })}` : null,
    addLabel: tab.addLabel ?? `Add ${tabLabel}`,
    actions,
    selectable: canChange || canDelete,
    canChange,
    canDelete,
    canRename: canChange && !!other.definition.fields.name,
    canDisconnect: canChange && !!other.definition.cabling,
    columns: [...columns.map((name) => ({ label: columnLabel(other, name) })), ...extraColumns.map((label) => ({ label }))],
    cabled: !!cableLinks,
    rows: built,
    empty: !built.length,
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  sendPage(ctx, { ...page, title: `${header.display} · ${tabLabel}` }, 'detail', view);
}
