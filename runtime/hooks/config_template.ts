/**
 * Config templates: `environment_params` is an object of Jinja2 environment options, and
 * POST /render/ renders the template with the request body as its context. A client asking for
 * text/plain gets the bare output; anyone else `{configtemplate, content}`.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, ModelHooks, Row } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { renderJinja } from '../core/jinja.js';
import { model } from '../data/registry.js';
import { renderRows } from '../data/serialize.js';

const ENVIRONMENT_OPTIONS = new Set(['trim_blocks', 'lstrip_blocks', 'keep_trailing_newline', 'undefined', 'autoescape']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Renders `template` (a config template's row) with `context`, answered as NetBox answers /render/. */
export async function renderConfigTemplate(ctx: ActionContext, db: Knex, template: Row, context: Record<string, unknown>, plain: boolean): Promise<ActionResult> {
  const environment = template.environment_params ? JSON.parse(template.environment_params) : {};
  const content = await renderJinja({ template: template.template_code, context, environment: isObject(environment) ? environment : {} });
  if (plain) return { status: 200, type: 'text/plain; charset=utf-8', body: content };
  const [configtemplate] = await renderRows(model('ConfigTemplate'), [template], { db, baseUrl: ctx.baseUrl, brief: true });
  return { status: 200, body: { configtemplate, content } };
}

/** The body as a template context: an object, or nothing. */
export function contextOf(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isObject(body)) throw errors.validation({ non_field_errors: ['Give the context as an object.'] });
  return body;
}

export const configTemplate: ModelHooks = {
  prepare(item) {
    if (item.values.environment_params === undefined || item.values.environment_params === null) return;
    const params = JSON.parse(item.values.environment_params);
    if (!isObject(params)) item.errors.add('environment_params', 'Give an object of Jinja2 environment options.');
    else {
      const unknown = Object.keys(params).filter((k) => !ENVIRONMENT_OPTIONS.has(k));
      if (unknown.length) item.errors.add('environment_params', `Unsupported option(s): ${unknown.join(', ')}. Supported: ${[...ENVIRONMENT_OPTIONS].join(', ')}.`);
    }
  },
  actions: {
    async render_template(ctx) {
      return renderConfigTemplate(ctx, ctx.db, ctx.row, contextOf(ctx.body), ctx.accept?.includes('text/plain') ?? false);
    },
  },
};
