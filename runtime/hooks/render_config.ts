/**
 * POST /render-config/ on devices and virtual machines: the object's config template (its own,
 * else its role's, else its platform's, as NetBox resolves it) rendered with the object's config
 * context, the request body over it, and the object itself under `device` or `virtualmachine` (its
 * API representation, where NetBox passes the model instance). No template is a 400 (`detail`).
 */
import type { ModelHooks } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { renderRows } from '../data/serialize.js';
import { renderConfigContexts } from './config_context.js';
import { contextOf, renderConfigTemplate } from './config_template.js';

export const renderConfig: ModelHooks = {
  actions: {
    async render_config(ctx) {
      const { db, row, entry } = ctx;
      const name = entry.definition.name;
      const key = name.toLowerCase();
      const related = async (table: string, id: unknown) => (id == null ? null : (await db(table).where('id', id).first('config_template_id'))?.config_template_id ?? null);
      const templateId = row.config_template_id ?? (await related('dcim_devicerole', row.role_id)) ?? (await related('dcim_platform', row.platform_id));
      if (templateId == null) throw errors.badRequest(`No config template found for this ${key}.`);
      const template = await db('extras_configtemplate').where('id', templateId).first();
      if (!template) throw errors.notFound();
      const contexts = await renderConfigContexts(db, name, [row]);
      const [object] = await renderRows(entry, [row], { db, baseUrl: ctx.baseUrl, exclude: ['config_context'] });
      const context = { ...(contexts.get(Number(row.id)) ?? {}), ...contextOf(ctx.body), [key]: object };
      return renderConfigTemplate(ctx, db, template, context, ctx.accept?.includes('text/plain') ?? false);
    },
  },
};
