/**
 * `/<app>/<model>/`: the table of a model. Columns come from the schema's `ui.columns` (or a default
 * from the model's fields); filtering, quick search, sorting and paging are the API's own query
 * parameters, answered by the API's list view. `?export=csv|json` downloads the current filter.
 */
import type { Context } from 'koa';
import { byContentType, storedField } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { callView, errorText, type ViewFn } from './api-call.js';
import { cell, plain } from './values.js';
import { label, listUrl, may, type Page } from './page.js';
import { sendPage } from './render.js';
import type { Services, State } from '../http/views.js';
import { columnViews } from './column-views/index.js';
import type { ApiViews } from './api-views.js';

export const PAGE_SIZES = [25, 50, 100, 250, 500];
const DEFAULT_PAGE_SIZE = 50;
/** query parameters the page itself uses; every other one is a filter for the API */
const PAGE_PARAMS = ['page', 'per_page', 'sort', 'export'];
const EXPORT_LIMIT = 10000;

/** The list's columns: the schema's `ui.columns`, else the name (or display) and the model's choices and relations. */
export function columnsOf(entry: ModelEntry): string[] {
  const d = entry.definition;
  if (d.ui?.columns) return d.ui.columns;
  const first = d.fields.name ? 'name' : d.fields.prefix ? 'prefix' : d.fields.address ? 'address' : 'display';
  const rest = Object.values(d.fields).filter((f) => f.name !== first && !f.writeOnly && (f.type === 'choice' || f.type === 'fk')).map((f) => f.name);
  return [first, ...rest].slice(0, 7);
}

export function columnLabel(entry: ModelEntry, name: string): string {
  if (name === 'display') return label(entry);
  const f = entry.definition.fields[name];
  if (f) return f.label;
  return name.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** Sortable when the API orders by it (a stored, scalar column). */
function sortable(entry: ModelEntry, name: string): boolean {
  const f = entry.definition.fields[name];
  if (!f) return ['id', 'created', 'last_updated'].includes(name);
  const s = storedField(entry, f);
  return s.columns.length > 0 && !['json', 'password', 'token_key', 'm2m', 'generic_fk', 'image'].includes(s.type);
}

/** The API query of a page URL: filters as given, page/per_page → limit/offset, sort → ordering. */
export function apiQuery(params: URLSearchParams): { query: URLSearchParams; page: number; perPage: number } {
  const perPage = PAGE_SIZES.includes(Number(params.get('per_page'))) ? Number(params.get('per_page')) : DEFAULT_PAGE_SIZE;
  const page = Math.max(1, Math.floor(Number(params.get('page')) || 1));
  const query = new URLSearchParams();
  for (const [k, v] of params) if (!PAGE_PARAMS.includes(k) && v !== '') query.append(k, v);
  if (params.get('sort')) query.set('ordering', params.get('sort')!);
  query.set('limit', String(perPage));
  query.set('offset', String((page - 1) * perPage));
  return { query, page, perPage };
}

/** `?query` of `base` with `changes` (null: removed). */
export function withParams(base: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(base);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) next.delete(k);
    else next.set(k, v);
  }
  return `?${next}`;
}

async function exportRows(ctx: Context, entry: ModelEntry, list: ViewFn, format: string): Promise<void> {
  const { query } = apiQuery(ctx.URL.searchParams);
  query.set('limit', String(EXPORT_LIMIT));
  query.set('offset', '0');
  const result = await callView(ctx, list, { query });
  if (!result.ok) throw new Error(errorText(result.error));
  const rows = result.body.results as Record<string, unknown>[];
  const name = `${entry.definition.app}_${entry.definition.endpoint}`;
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 200;
  if (format === 'json') {
    ctx.type = 'application/json';
    ctx.attachment(`${name}.json`);
    ctx.body = JSON.stringify(rows, null, 2);
    return;
  }
  const columns = ['id', ...columnsOf(entry).filter((c) => c !== 'id')];
  const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [columns.join(','), ...rows.map((r) => columns.map((c) => quote(plain(r[c]))).join(','))];
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(`${name}.csv`);
  ctx.body = `${lines.join('\r\n')}\r\n`;
}

/** The names of the export templates for this model (the API's `?export=<name>`). */
async function exportTemplates(ctx: Context, entry: ModelEntry, api: ApiViews): Promise<string[]> {
  const templates = byContentType.get('extras.exporttemplate');
  if (!templates || !api.has(templates)) return [];
  const result = await callView(ctx, api.get(templates)!.list, { query: new URLSearchParams({ content_types: entry.definition.contentType, brief: '1', limit: '50' }) });
  return result.ok ? (result.body.results as { name?: string; display: string }[]).map((t) => t.name ?? t.display) : [];
}

export async function listPage(ctx: Context, services: Services, page: Page, entry: ModelEntry, api: ApiViews): Promise<void> {
  const list = api.get(entry)!.list;
  const params = ctx.URL.searchParams;
  const format = params.get('export');
  if (format === 'csv' || format === 'json') return exportRows(ctx, entry, list, format);
  if (format) {
    // An export template: the API renders it, for the same filters (the session cookie authenticates).
    const api = new URLSearchParams(apiQuery(params).query);
    api.delete('limit');
    api.delete('offset');
    api.set('export', format);
    ctx.status = 302;
    ctx.redirect(`/api/${entry.definition.app}/${entry.definition.endpoint}/?${api}`);
    return;
  }
  const { query, page: pageNumber, perPage } = apiQuery(params);
  const columns = columnsOf(entry);
  // Only the columns shown are rendered (a device's config context, for one, is costly to compute).
  const shown = new Set(['id', 'url', 'display', ...columns]);
  query.set('exclude', entry.serializer.full.filter((f) => !shown.has(f)).join(','));
  const result = await callView(ctx, list, { query });
  const sort = params.get('sort') ?? '';
  const base = new URLSearchParams(params);
  base.delete('page');
  const rows = result.ok ? (result.body.results as Record<string, any>[]) : [];
  const count = result.ok ? Number(result.body.count) : 0;
  const pages = Math.max(1, Math.ceil(count / perPage));
  const canChange = may(ctx, entry, 'change', services) && !entry.definition.readOnly;
  const canDelete = may(ctx, entry, 'delete', services) && !entry.definition.readOnly;
  // The model's added columns (utilization), each computed for the whole page at once.
  const db = (ctx.state as State).readDb ?? services.db;
  const added = (entry.definition.ui?.columnViews ?? []).map((name) => columnViews[name]);
  const addedCells = await Promise.all(added.map((v) => v.render(db, rows)));
  const filters = [...new URLSearchParams(query)].filter(([k]) => !['limit', 'offset', 'ordering', 'q', 'exclude'].includes(k)).map(([k, v]) => ({ name: k, value: v }));
  const exportQuery = new URLSearchParams(base);
  exportQuery.delete('per_page');
  exportQuery.delete('sort');
  const view = {
    title: label(entry, true),
    listUrl: listUrl(entry),
    error: result.ok ? null : errorText(result.error),
    q: params.get('q') ?? '',
    filters,
    filterCount: filters.length,
    filterFormUrl: `${listUrl(entry)}filter-form/?${base}`,
    columns: columns.map((name) => {
      const active = sort === name ? 'asc' : sort === `-${name}` ? 'desc' : null;
      return {
        name,
        label: columnLabel(entry, name),
        sortUrl: sortable(entry, name) ? withParams(base, { sort: active === 'asc' ? `-${name}` : name }) : null,
        ariaSort: active === 'asc' ? 'ascending' : active === 'desc' ? 'descending' : 'none',
        arrow: active === 'asc' ? '▲' : active === 'desc' ? '▼' : '',
      };
    }).concat(added.map((v) => ({ name: '', label: v.label, sortUrl: null, ariaSort: 'none', arrow: '' }))),
    rows: rows.map((r, n) => ({
      id: r.id,
      display: r.display,
      url: `${listUrl(entry)}${r.id}/`,
      cells: columns.map((c, i) => ({ first: i === 0, ...cell(r[c]), value: i === 0 ? plain(r[c]) || String(r.display ?? r.id) : '' })),
      extra: addedCells.map((cells) => cells[n]),
    })),
    count,
    empty: !rows.length,
    selectable: canChange || canDelete,
    canAdd: may(ctx, entry, 'add', services) && !entry.definition.readOnly,
    canChange,
    canDelete,
    pageNumber,
    pages,
    prevUrl: pageNumber > 1 ? withParams(base, { page: String(pageNumber - 1) }) : null,
    nextUrl: pageNumber < pages ? withParams(base, { page: String(pageNumber + 1) }) : null,
    pageSizes: PAGE_SIZES.map((n) => ({ n, selected: n === perPage })),
    sort,
    exportCsv: `?${withParams(exportQuery, { export: 'csv' }).slice(1)}`,
    exportJson: `?${withParams(exportQuery, { export: 'json' }).slice(1)}`,
    exportTemplates: (await exportTemplates(ctx, entry, api)).map((name) => ({ name, url: withParams(exportQuery, { export: name }) })),
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  sendPage(ctx, { ...page, title: view.title }, 'list', view);
}
