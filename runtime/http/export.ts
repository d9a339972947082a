/**
 * `?export=<name>` on a list: the whole filtered list (no pagination) rendered through the export
 * template of that name for the list's object type, sent with the template's MIME type and, when it
 * says so, as an attachment.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { model, type Row } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { render, TemplateError } from '../webhooks/template.js';
import { contentTypesOf } from '../hooks/object-types.js';

export async function exportTemplateFor(db: Knex, entry: ModelEntry, params: URLSearchParams): Promise<Row | null> {
  const name = params.get('export');
  if (name === null) return null;
  const rows: Row[] = await db(model('ExportTemplate').definition.table).where('name', name);
  const template = rows.find((r) => contentTypesOf(r.content_types).includes(entry.definition.contentType));
  if (!template) throw errors.badFilter('export', `No export template '${name}' applies to ${entry.definition.contentType}.`);
  return template;
}

export async function sendExport(ctx: Context, entry: ModelEntry, template: Row, queryset: Record<string, unknown>[]): Promise<void> {
  let body: string;
  try {
    body = await render(String(template.template_code), { queryset }, 'template_code');
  } catch (error) {
    if (error instanceof TemplateError) throw errors.validation({ export: [`The export template could not be rendered: ${error.message}`] });
    throw error;
  }
  ctx.status = 200;
  ctx.type = template.mime_type || 'text/plain; charset=utf-8';
  if (template.as_attachment === true || template.as_attachment === 1) {
    const extension = template.file_extension ? `.${String(template.file_extension).replace(/^\./, '')}` : '';
    ctx.attachment(`netledger_${entry.definition.endpoint.replace(/-/g, '_')}${extension}`);
  }
  ctx.body = body;
}
