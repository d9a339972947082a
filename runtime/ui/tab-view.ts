/**
 * What a tab's table may add to the rows the API lists (`ui.tabs.<tab>.view`,
 * runtime/ui/tab-views/<name>.ts): free space between them as rows that open the add form with it
 * filled in, the rows' depth in a hierarchy, a column of utilization bars, actions in the header.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import type { Services } from '../http/views.js';
import type { ApiViews } from './api-views.js';
import { listUrl } from './page.js';

/** A row of the tab's table: one of the listed objects, or free space (`free`). */
export interface TabRow {
  id?: number;
  display?: string;
  url?: string;
  cells?: Record<string, unknown>[];
  /** one entry per level of depth, drawn as indentation before the first cell */
  indent?: number[];
  /** the view's own columns, in order: a bar (utilization) or text */
  extra?: { bar?: { value: number; text: string }; text?: string }[];
  free?: { text: string; url: string | null };
  [key: string]: unknown;
}

export interface TabViewInput {
  ctx: Context;
  services: Services;
  api: ApiViews;
  /** the object whose page it is, and its model */
  entry: ModelEntry;
  object: Record<string, any>;
  /** the listed model, its rows as the API gave them, and the table's rows built from them */
  other: ModelEntry;
  rows: Record<string, any>[];
  built: TabRow[];
  /** the tab's URL (a form opened from it comes back here) */
  here: string;
  /** no row follows the last one given (the table's last page) */
  complete: boolean;
}

export interface TabViewResult {
  rows: TabRow[];
  /** labels of the view's own columns (each row's `extra`) */
  columns?: string[];
  actions?: { label: string; url: string }[];
}

export interface TabView {
  /**
   * The view places free space between rows in their order: it also gets the row just before the
   * page and the one just after it (marked `edge`), returns them in place among its rows, and the
   * table shows what lies between them (free space at the page's ends lands on one page only).
   */
  readsNeighbours?: boolean;
  /** fields the view reads from the listed rows besides the table's columns */
  fields?: string[];
  render(input: TabViewInput): Promise<TabViewResult>;
}

/** `/<app>/<endpoint>/add/?...&return_url=...`: the add form of a model with values filled in. */
export function addUrl(entry: ModelEntry, values: Record<string, unknown>, returnUrl: string): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== null && v !== undefined && v !== '') query.set(k, String(v));
  query.set('return_url', returnUrl);
  return `${listUrl(entry)}add/?${query}`;
}
