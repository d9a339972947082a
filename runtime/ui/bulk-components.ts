/**
 * Bulk actions on the rows ticked in a table of named or cabled objects (a device's interfaces):
 * rename (find and replace in the names, optionally a regular expression, previewed before it is
 * applied) and disconnect (the cables of the selected objects deleted). Each is one API bulk write.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import { modelList } from '../data/registry.js';
import { callView, errorText } from './api-call.js';
import { label, type Page } from './page.js';
import { sendPage } from './render.js';
import { listUrl } from './page.js';
import type { Services } from '../http/views.js';
import type { ApiViews } from './api-views.js';

export interface BulkRequest {
  ctx: Context;
  services: Services;
  page: Page;
  entry: ModelEntry;
  api: ApiViews;
  form: URLSearchParams;
  selected: number[];
  hidden: { name: string; value: string }[];
  back: string;
}

async function selectedRows(b: BulkRequest, fields: string[]): Promise<Record<string, any>[]> {
  const query = new URLSearchParams(b.selected.map((id) => ['id', String(id)]));
  query.set('limit', String(b.selected.length));
  query.set('fields', ['id', 'display', ...fields].join(','));
  const result = await callView(b.ctx, b.api.get(b.entry)!.list, { query });
  return result.ok ? result.body.results : [];
}

function done(ctx: Context, to: string): void {
  ctx.status = 303;
  ctx.redirect(to);
}

/** Find and replace in the selected objects' names: a preview first, then one bulk update. */
export async function renamePage(b: BulkRequest): Promise<void> {
  const { ctx, page, entry, form } = b;
  const find = form.get('find') ?? '';
  const replace = form.get('replace') ?? '';
  const regex = form.get('use_regex') === 'true';
  let error = '';
  let pattern: RegExp | null = null;
  if (find) {
    try {
      pattern = regex ? new RegExp(find, 'g') : new RegExp(find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
    } catch (e) {
      error = `find: ${(e as Error).message}`;
    }
  }
  const rows = await selectedRows(b, ['name']);
  const renamed = rows.map((r) => ({ id: r.id, old: String(r.name), name: pattern ? String(r.name).replace(pattern, replace) : String(r.name) }));
  if (form.get('confirm') === 'true' && pattern && !error) {
    const result = await callView(ctx, (c) => b.api.get(entry)!.update(c, true), { body: renamed.map((r) => ({ id: r.id, name: r.name })) });
    if (result.ok) return done(ctx, b.back);
    error = errorText(Array.isArray(result.error) ? result.error.find((e: object) => Object.keys(e).length) : result.error);
  }
  const heading = `Rename ${rows.length} ${label(entry, rows.length !== 1).toLowerCase()}`;
  sendPage(ctx, { ...page, title: heading }, 'rename', {
    heading, error, find, replace, regex, previewed: !!pattern, renamed,
    hidden: b.hidden.filter((h) => h.name !== 'action').concat({ name: 'action', value: 'rename' }),
    action: `${listUrl(entry)}bulk/`, cancelUrl: b.back, csrf: page.csrf, csrfField: page.csrfField,
  }, error ? 400 : 200);
}

/** Deletes the cables of the selected objects, after a confirmation listing them. */
export async function disconnectPage(b: BulkRequest): Promise<void> {
  const { ctx, page, entry, form } = b;
  const cableModel = modelList.find((m) => m.definition.name === entry.definition.fields.cable?.to);
  if (!cableModel) return done(ctx, b.back);
  const rows = (await selectedRows(b, ['cable'])).filter((r) => r.cable);
  const cables = [...new Set(rows.map((r) => Number(r.cable.id)))];
  let blocked = '';
  if (form.get('confirm') === 'true') {
    if (!cables.length) return done(ctx, b.back);
    const result = await callView(ctx, b.api.get(cableModel)!.remove, { body: cables.map((id) => ({ id })) });
    if (result.ok) return done(ctx, b.back);
    blocked = errorText(result.error);
  }
  const heading = `Disconnect ${rows.length} ${label(entry, rows.length !== 1).toLowerCase()}`;
  sendPage(ctx, { ...page, title: heading }, 'confirm', {
    heading, blocked, question: cables.length ? `Delete the ${cables.length} cables of these objects?` : 'None of the selected objects has a cable.',
    hasItems: rows.length > 0, items: rows.map((r) => `${r.display}: ${r.cable.display}`),
    action: `${listUrl(entry)}bulk/`, cancelUrl: b.back, button: 'Disconnect', hidden: b.hidden, csrf: page.csrf, csrfField: page.csrfField,
  }, blocked ? 409 : 200);
}
