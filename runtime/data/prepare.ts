/**
 * Everything a process does before it uses the database, whether it serves the API, runs a CLI
 * command or only migrates: the schema's hooks exist, pending migrations are applied, and rows an
 * upgrade left incomplete (content types, natural sort keys, what hooks' `startup` fills) are filled in.
 */
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { openDatabase } from './db.js';
import { migrate } from './migrate.js';
import { checkHooks, hooksOf, modelList } from './registry.js';
import { backfillNaturalKeys } from './natural.js';
import { syncContentTypes } from './content-types.js';
import { preparingAlone } from './prepare-lock.js';
import { restoreSearchTriggers } from './search-index.js';

export async function prepareDatabase(config: Config): Promise<{ db: Knex; applied: string[] }> {
  checkHooks();
  const db = openDatabase(config);
  try {
    const applied = await preparingAlone(db, config, async () => {
      const names = await migrate(db, config.databaseSchema);
      if (names.length) await restoreSearchTriggers(db);
      await backfillNaturalKeys(db);
      await syncContentTypes(db);
      for (const hook of new Set(modelList.flatMap(hooksOf))) await hook.startup?.({ db });
      return names;
    });
    return { db, applied };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** The connection of a process whose database another process already prepared (a cluster worker). */
export function openPrepared(config: Config): Knex {
  checkHooks();
  return openDatabase(config);
}
