/**
 * Content types: readable by every authenticated user, without an object permission (as NetBox).
 * The rows themselves are kept by runtime/content-types.ts; the model is read-only. Also the filter
 * by content type id that models with a generic relation offer (`<relation type>_id=<id>`).
 */
import type { Knex } from 'knex';
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';

export const contentType: ModelHooks = {
  selfService: true,
};

/**
 * Rows whose generic relation's type column names one of the content types with these ids; with the
 * number lookups the schema may give it (`__gt` compares ids, `__empty` asks for no type).
 */
export function byContentTypeId(param: string, column: string) {
  return (qb: Knex.QueryBuilder, values: string[], { db, lookup = 'exact' }: { db: Knex; lookup?: string }) => {
    const name = lookup === 'exact' ? param : `${param}__${lookup}`;
    if (lookup === 'empty') {
      if (parseBoolean(name, values[0])) qb.whereNull(column);
      else qb.whereNotNull(column);
      return;
    }
    const ids = values.map((v) => {
      if (!/^\d+$/.test(v)) throw errors.badFilter(name, 'Enter a whole number.');
      return Number(v);
    });
    const types = db(model('ContentType').definition.table).select(db.raw("app_label || '.' || model"));
    const op = ({ gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>)[lookup];
    if (op) types.where((w) => { for (const id of ids) w.orWhere('id', op, id); });
    else types.whereIn('id', ids);
    qb.whereIn(column, types);
  };
}
