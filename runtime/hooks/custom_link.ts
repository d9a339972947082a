/** Custom links: object types that exist, and link text and URL templates that parse. */
import type { ModelHooks } from '../data/registry.js';
import { templateError } from '../webhooks/template.js';
import { checkContentTypes, contentTypeIdsFilter, contentTypesFilter } from './object-types.js';

export const customLink: ModelHooks = {
  filters: { custom_link_content_types: contentTypesFilter(), custom_link_content_type_id: contentTypeIdsFilter() },
  prepare(item) {
    checkContentTypes(item);
    const v = { ...(item.existing ?? {}), ...item.values };
    for (const field of ['link_text', 'link_url']) {
      const error = typeof v[field] === 'string' ? templateError(v[field]) : null;
      if (error) item.errors.add(field, `Invalid template: ${error}`);
    }
  },
};
