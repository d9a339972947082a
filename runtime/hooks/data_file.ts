/**
 * Data files: their bytes (core_stored_file) go with them. The sync writes them without a change
 * log, so the change-log filters NetBox offers on them find no file.
 */
import type { Knex } from 'knex';
import type { ModelHooks } from '../data/registry.js';
import { removeFiles } from '../data/stored-files.js';

/** A filter no row passes (its `__n` form, which the runtime negates, passes every row). */
export function matchesNone(qb: Knex.QueryBuilder): void {
  qb.whereRaw('1 = 0');
}

export const dataFile: ModelHooks = {
  filters: { no_change_record: matchesNone },
  async beforeDelete(ids, ctx) {
    await removeFiles(ctx.db, ctx.entry!.definition.contentType, ids);
  },
};
