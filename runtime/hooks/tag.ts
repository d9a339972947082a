/**
 * Tags: NetBox's filters by object type. `content_type` / `content_type_id`: tags applied to some
 * object of that type; `object_types`: tags restricted to that type (by content type id);
 * `for_object_type_id`: tags that may be applied to that type (unrestricted, or restricted to it).
 */
import type { Knex } from 'knex';
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { contentTypeIdsFilter, forObjectTypeFilter } from './object-types.js';
import { TAGGED_ITEMS } from '../data/tagged-items.js';

/** Tags carried by an object of one of these content types (`app.model` names, or a subquery of them). */
function appliedTo(qb: Knex.QueryBuilder, db: Knex, types: string[] | Knex.QueryBuilder): void {
  qb.whereIn('id', db(TAGGED_ITEMS).select('tag_id').whereIn('object_type', types as never));
}

export const tag: ModelHooks = {
  filters: {
    tag_content_type(qb, values, { db }) {
      appliedTo(qb, db, values.map((v) => v.toLowerCase()));
    },
    tag_content_type_id(qb, values, { db }) {
      const ids = values.map((v) => {
        if (!/^\d+$/.test(v)) throw errors.badFilter('content_type_id', 'Enter a whole number.');
        return Number(v);
      });
      appliedTo(qb, db, db(model('ContentType').definition.table).select(db.raw("app_label || '.' || model")).whereIn('id', ids));
    },
    tag_object_types: contentTypeIdsFilter('object_types'),
    tag_for_object_type_id: forObjectTypeFilter('object_types'),
  },
};
