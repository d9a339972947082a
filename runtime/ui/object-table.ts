/**
 * A small table of another model's objects inside a panel (an IP address's parent prefixes, its
 * duplicates): the rows an API list view gives for a query, the model's own column labels, the
 * first column a link to the object's page, every object in a cell a link, and optional bars.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import { callView } from './api-call.js';
import { columnLabel } from './list.js';
import { listUrl } from './page.js';
import { renderTemplate } from './render.js';
import type { ApiViews } from './api-views.js';
import { cell, plain } from './values.js';
import { barView, type Bar } from './bar.js';

export { barView, percentText, type Bar } from './bar.js';

/** The model's rows for `query` (at most `limit`), as the API lists them. */
export async function listRows(ctx: Context, api: ApiViews, other: ModelEntry, query: URLSearchParams, limit = 100): Promise<Record<string, any>[]> {
  query.set('limit', String(limit));
  const result = await callView(ctx, api.get(other)!.list, { query });
  return result.ok ? (result.body.results as Record<string, any>[]) : [];
}

/** The table's HTML: `columns` of `other`, one row per object; `bars` (by row) as a last column; `empty` when there is no row. */
export function objectTable(other: ModelEntry, caption: string, columns: string[], rows: Record<string, any>[], extra: { bars?: { label: string; values: Bar[] }; empty?: string } = {}): string {
  const { bars } = extra;
  return renderTemplate('object-table', {
    caption,
    empty: rows.length ? '' : extra.empty ?? 'None.',
    columns: [...columns.map((c) => ({ label: columnLabel(other, c) })), ...(bars ? [{ label: bars.label }] : [])],
    rows: rows.map((r, i) => ({
      cells: columns.map((c, n) => (n === 0 ? { first: true, url: `${listUrl(other)}${r.id}/`, value: plain(r[c]) || String(r.display ?? r.id) } : cell(r[c]))),
      bar: bars?.values[i],
    })),
  });
}

/** A panel with one utilization figure: the bar and what it measures. */
export function utilizationPanel(value: number, what: string): { title: string; html: string } {
  return { title: 'Utilization', html: renderTemplate('utilization-panel', { ...barView(value), what }) };
}
