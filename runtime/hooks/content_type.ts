/**
 * Content types: readable by every authenticated user, without an object permission (as NetBox).
 * The rows themselves are kept by runtime/content-types.ts; the model is read-only. Also the filter
 * by content type id that models with a generic relation offer (`<relation type>_id=<id>`).
 */
import type { Knex } from 'knex';
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { errors } from '../core/errors.js';

export const contentType: ModelHooks = {
  selfService: true,
};

/** Rows whose generic relation's type column names one of the content types with these ids. */
export function byContentTypeId(param: string, column: string) {
  return (qb: Knex.QueryBuilder, values: string[], { db }: { db: Knex }) => {
    const ids = values.map((v) => {
      if (!/^\d+$/.test(v)) throw errors.badFilter(param, 'Enter a whole number.');
      return Number(v);
    });
    const types = model('ContentType').definition.table;
    qb.whereIn(column, db(types).select(db.raw("app_label || '.' || model")).whereIn('id', ids));
  };
}
