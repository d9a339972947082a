/**
 * Saved filters: object types that exist, parameters that are an object of filter name → value(s),
 * and `user` defaulting to the requesting user.
 */
import type { ModelHooks } from '../data/registry.js';
import { parseBoolean } from '../core/query-values.js';
import { checkContentTypes, contentTypeIdsFilter, contentTypesFilter, parseJson } from './object-types.js';

const scalar = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);

export const savedFilter: ModelHooks = {
  filters: {
    saved_filter_content_types: contentTypesFilter(),
    saved_filter_content_type_id: contentTypeIdsFilter(),
    /** `?usable=true`: the filters the requesting user can apply (enabled, and shared or their own); false: the others */
    saved_filter_usable(qb, values, { user }) {
      const usable = (w: typeof qb) => w.where('enabled', true).where((x) => { x.where('shared', true); if (user) x.orWhere('user_id', user.id); });
      if (parseBoolean('usable', values[values.length - 1])) usable(qb);
      else qb.whereNot((w) => usable(w));
    },
  },
  prepare(item, { user }) {
    if (!item.existing && !('user' in item.input)) item.values.user_id = user?.id ?? null;
    checkContentTypes(item);
    const parameters = parseJson({ ...(item.existing ?? {}), ...item.values }.parameters);
    const valid = !!parameters && typeof parameters === 'object' && !Array.isArray(parameters)
      && Object.values(parameters).every((v) => scalar(v) || (Array.isArray(v) && v.every(scalar)));
    if (!valid) item.errors.add('parameters', 'Give an object of filter names to a value or a list of values, e.g. {"status": ["active"]}.');
  },
};
