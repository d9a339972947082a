/**
 * Many objects at once: bulk delete and bulk edit of the rows ticked in a list, and
 * `/<app>/<model>/import/` (CSV, JSON or YAML pasted in). Each goes through the API's bulk write
 * path in one transaction: all objects or none, with errors reported per row.
 */
import type { Context } from 'koa';
import { parse as parseYaml } from 'yaml';
import type { ModelEntry } from '../core/types.js';
import { callView, errorText } from './api-call.js';
import { buildInputs, formBody } from './forms.js';
import { label, listUrl, may, readForm, returnUrl, type Page } from './page.js';
import { disconnectPage, renamePage } from './bulk-components.js';
import { importRows, lineFinder } from './import-rows.js';
import { sendPage } from './render.js';
import { forbidden, relationChoices } from './objects.js';
import type { ApiViews } from './api-views.js';
import type { Services } from '../http/views.js';
import type { Session } from '../auth/sessions.js';

function ids(form: URLSearchParams): number[] {
  return form.getAll('pk').map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

/** POST from a list's checkboxes: a confirmation (delete) or a form (edit); confirmed, it is done. */
export async function bulkPage(ctx: Context, services: Services, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews): Promise<void> {
  const form = await readForm(ctx, session);
  const action = form.get('action');
  const selected = ids(form);
  const v = api.get(entry)!;
  const back = returnUrl(form, listUrl(entry));
  const hidden = [...selected.map((id) => ({ name: 'pk', value: String(id) })), { name: 'action', value: action ?? '' }, { name: 'return_url', value: back }];
  if (!selected.length) {
    ctx.status = 303;
    ctx.redirect(back);
    return;
  }
  if (action === 'rename' || action === 'disconnect') {
    if (!may(ctx, entry, 'change', services)) return forbidden(ctx, page);
    const bulk = { ctx, services, page, entry, api, form, selected, hidden, back };
    return action === 'rename' ? renamePage(bulk) : disconnectPage(bulk);
  }
  if (action === 'delete') {
    if (!may(ctx, entry, 'delete', services)) return forbidden(ctx, page);
    let blocked = '';
    if (form.get('confirm') === 'true') {
      const result = await callView(ctx, v.remove, { body: selected.map((id) => ({ id })) });
      if (result.ok) {
        ctx.status = 303;
        ctx.redirect(back);
        return;
      }
      blocked = errorText(result.error);
    }
    const heading = `Delete ${selected.length} ${label(entry, selected.length !== 1).toLowerCase()}`;
    sendPage(ctx, { ...page, title: heading }, 'confirm', {
      heading, blocked, question: `Are you sure you want to delete these ${selected.length} objects?`, hasItems: false, items: [],
      action: `${listUrl(entry)}bulk/`, cancelUrl: back, button: 'Delete all', hidden, csrf: page.csrf, csrfField: page.csrfField,
    }, blocked ? 409 : 200);
    return;
  }
  if (action !== 'edit' || !may(ctx, entry, 'change', services)) return forbidden(ctx, page);
  // Bulk edit: only the fields given a value are changed (a partial update of every selected object).
  const choices = await relationChoices(ctx, api, entry, false);
  const inputs = buildInputs(entry, false, { object: null, posted: null, errors: {}, choicesOf: (m) => choices.get(m) ?? [], customFields: [] })
    .filter((i) => (i.select && !i.multiple) || (i.text && i.inputType !== 'password'));
  let errorsText = '';
  if (form.get('confirm') === 'true') {
    const { body } = formBody(entry, form, false, []);
    const changes = Object.fromEntries(inputs.map((i) => i.name).filter((n) => (form.get(n) ?? '') !== '').map((n) => [n, body[n]]));
    const result = await callView(ctx, (c) => v.update(c, true), { body: selected.map((id) => ({ id, ...changes })) });
    if (result.ok) {
      ctx.status = 303;
      ctx.redirect(back);
      return;
    }
    errorsText = errorText(Array.isArray(result.error) ? result.error.find((e: object) => Object.keys(e).length) : result.error);
  }
  for (const i of inputs) {
    i.required = false;
    if (i.options) i.options = [{ value: '', label: '(unchanged)', selected: true }, ...i.options.filter((o) => o.value !== '').map((o) => ({ ...o, selected: false }))];
    else i.value = '';
  }
  const heading = `Edit ${selected.length} ${label(entry, selected.length !== 1).toLowerCase()}`;
  sendPage(ctx, { ...page, title: heading }, 'bulk-edit', {
    heading, error: errorsText, inputs, hidden, action: `${listUrl(entry)}bulk/`, cancelUrl: back, csrf: page.csrf, csrfField: page.csrfField,
  }, errorsText ? 400 : 200);
}

/** The rows of pasted data: a JSON or YAML list (or one object), or CSV with a header line. */
export function parseImport(text: string, format: string): Record<string, unknown>[] {
  const trimmed = text.trim();
  if (format === 'csv' || (format === 'auto' && !/^[[{]/.test(trimmed) && /^[\w ,"]+\r?\n/.test(trimmed) && !/^\w+:\s/.test(trimmed))) return parseCsv(trimmed);
  const data = /^[[{]/.test(trimmed) ? JSON.parse(trimmed) : parseYaml(trimmed);
  const rows = Array.isArray(data) ? data : [data];
  if (!rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) throw new Error('Every row must be an object of fields.');
  return rows;
}

function csvLine(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { out.push(field); field = ''; }
    else field += c;
  }
  out.push(field);
  return out;
}

/** CSV as NetBox imports it: a header of field names; relations by their lookup (site=slug); empty cells left out. */
function parseCsv(text: string): Record<string, unknown>[] {
  const [header, ...lines] = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const names = csvLine(header).map((h) => h.trim());
  return lines.map((line) => {
    const cells = csvLine(line);
    return Object.fromEntries(names.map((n, i) => [n, cells[i]?.trim() ?? '']).filter(([, v]) => v !== '').map(([n, v]) => [n, /^(tags)$/.test(n) ? v.split(/[;|]/).map((t) => ({ slug: t.trim() })) : v]));
  });
}

export async function importPage(ctx: Context, services: Services, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews): Promise<void> {
  if (entry.definition.readOnly || !may(ctx, entry, 'add', services)) return forbidden(ctx, page);
  let data = '';
  let format = 'auto';
  let error = '';
  let rowErrors: { row: number; text: string }[] = [];
  if (ctx.method === 'POST') {
    const form = await readForm(ctx, session);
    data = form.get('data') ?? '';
    format = form.get('format') ?? 'auto';
    let rows: Record<string, unknown>[] = [];
    try {
      rows = parseImport(data, format);
    } catch (e) {
      error = `The data could not be read: ${(e as Error).message}`;
    }
    if (!error && !rows.length) error = 'No rows to import.';
    if (!error) {
      const csv = format === 'csv' || !/^\s*[-[{]|^\w+:\s/.test(data);
      const result = await importRows(ctx, api, entry, rows, csv ? () => null : lineFinder(data));
      if ('ids' in result) {
        ctx.status = 303;
        ctx.redirect(`${listUrl(entry)}?id=${result.ids.join('&id=')}`);
        return;
      }
      rowErrors = result.errors.filter((e) => e.row).map((e) => ({ row: e.row, text: e.line ? `${e.text} (line ${e.line})` : e.text }));
      const failed = new Set(rowErrors.map((e) => e.row)).size;
      error = rowErrors.length ? `Nothing was imported: ${failed} of ${rows.length} rows have errors.` : result.errors.map((e) => e.text).join(' ');
    }
  }
  const heading = `Import ${label(entry, true).toLowerCase()}`;
  sendPage(ctx, { ...page, title: heading }, 'import', {
    heading, data, error, rowErrors, hasRowErrors: rowErrors.length > 0, action: `${listUrl(entry)}import/`, cancelUrl: listUrl(entry),
    formats: ['auto', 'csv', 'json', 'yaml'].map((f) => ({ value: f, label: f === 'auto' ? 'Detect' : f.toUpperCase(), selected: f === format })),
    csrf: page.csrf, csrfField: page.csrfField,
  }, error ? 400 : 200);
}
