/**
 * Content types (`/api/extras/content-types/`): one row per model of the registry, `app.model`.
 * The rows are added at start-up, in content-type order, for every model that has none yet, so ids
 * never change: a fresh database numbers them alphabetically, and a model added later gets a new id.
 * The list itself is the generic read-only view of the ContentType model.
 */
import type { Knex } from 'knex';
import { model, modelList } from './registry.js';

/** Human names of the apps, as NetBox shows them ("DCIM | device"). */
const APP_NAMES: Record<string, string> = {
  circuits: 'Circuits',
  contenttypes: 'Content Types',
  dcim: 'DCIM',
  extras: 'Extras',
  ipam: 'IPAM',
  tenancy: 'Tenancy',
  users: 'Users',
  virtualization: 'Virtualization',
};

function appName(label: string): string {
  return APP_NAMES[label] ?? label.charAt(0).toUpperCase() + label.slice(1);
}

/** Adds the content types that are missing; safe when several processes start at once. */
export async function syncContentTypes(db: Knex): Promise<void> {
  const table = model('ContentType').definition.table;
  const wanted = modelList
    .map((m) => {
      const [app_label, name] = m.definition.contentType.split('.');
      return { app_label, model: name, app_verbose_name: appName(app_label), verbose_name: m.definition.verboseName };
    })
    .sort((a, b) => `${a.app_label}.${a.model}`.localeCompare(`${b.app_label}.${b.model}`));
  const stored = new Map((await db(table).select('app_label', 'model', 'app_verbose_name', 'verbose_name')).map((r) => [`${r.app_label}.${r.model}`, r]));
  for (const w of wanted) {
    const row = stored.get(`${w.app_label}.${w.model}`);
    // One insert at a time, so the ids follow the order above on both databases.
    if (!row) await db(table).insert(w).onConflict(['app_label', 'model']).ignore();
    // Names may change in the schema; keep them current.
    else if (row.verbose_name !== w.verbose_name || row.app_verbose_name !== w.app_verbose_name) {
      await db(table).where({ app_label: w.app_label, model: w.model }).update({ verbose_name: w.verbose_name, app_verbose_name: w.app_verbose_name });
    }
  }
}
