/** Export templates: object types that exist, and a template that parses. */
import type { ModelHooks } from '../data/registry.js';
import { templateError } from '../webhooks/template.js';
import { checkContentTypes, contentTypeIdsFilter, contentTypesFilter } from './object-types.js';

export const exportTemplate: ModelHooks = {
  filters: { export_template_content_types: contentTypesFilter(), export_template_content_type_id: contentTypeIdsFilter() },
  prepare(item) {
    checkContentTypes(item);
    const code = { ...(item.existing ?? {}), ...item.values }.template_code;
    const error = typeof code === 'string' ? templateError(code) : null;
    if (error) item.errors.add('template_code', `Invalid template: ${error}`);
  },
};
