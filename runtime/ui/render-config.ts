/**
 * The render-config tab of a model whose schema declares a `render-config` action (devices and
 * virtual machines). The page runs that action's own API view, so it renders exactly what POST
 * /api/<app>/<model>/<id>/render-config/ answers: the object's config template (its own, else its
 * role's, else its platform's), linked, and its output; `?export=1` is the bare text as a file. The
 * config context it rendered with is shown beside it. No template, or a template that fails, is a
 * message with the API's own text.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import { model } from '../data/registry.js';
import { actionView } from '../http/actions.js';
import type { Services } from '../http/views.js';
import { callView, errorText, type ViewFn } from './api-call.js';
import { may } from './page.js';
import { cell } from './values.js';

export const RENDER_CONFIG_TAB = 'render-config';

const views = new Map<ModelEntry, ViewFn>();

function route(entry: ModelEntry) {
  return entry.routes.extra.find((e) => !e.app && e.path.endsWith(`/${RENDER_CONFIG_TAB}/`));
}

/** Does the model have the tab, for this user (who must also may see the templates it links)? */
export function hasRenderConfig(ctx: Context, services: Services, entry: ModelEntry): boolean {
  if (!route(entry)) return false;
  const template = entry.definition.fields.config_template;
  return !template?.to || may(ctx, model(template.to), 'view', services);
}

/** The tab's view, or true when the answer is the exported text (already set on ctx). */
export async function renderConfigView(ctx: Context, services: Services, entry: ModelEntry, object: Record<string, any>): Promise<Record<string, unknown> | true> {
  const extra = route(entry)!;
  let view = views.get(entry);
  if (!view) views.set(entry, (view = actionView(entry, extra, services)));
  const path = extra.path.replace(':id', String(object.id));
  const result = await callView(ctx, view, { params: { id: String(object.id) }, path });
  const context = JSON.stringify(object.config_context ?? {}, null, 2);
  if (!result.ok) return { renderError: errorText(result.error), renderContext: context };
  const content = typeof result.body === 'string' ? result.body : String(result.body.content ?? '');
  if (ctx.query.export !== undefined) {
    ctx.status = 200;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.attachment(`${String(object.name ?? object.display ?? object.id).replace(/[^\w.-]+/g, '_')}.txt`);
    ctx.body = content;
    return true;
  }
  return { rendered: content, renderTemplate: cell(result.body.configtemplate), renderContext: context };
}
