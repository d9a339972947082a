/**
 * `?filter=<slug>` on a list: the saved filter's parameters join the request's own (both apply).
 * The filter must be enabled, apply to the list's object type, and be shared or the user's own.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { model, type Row } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import type { User } from '../auth/authenticate.js';
import { contentTypesOf, parseJson } from '../hooks/object-types.js';

export async function withSavedFilters(db: Knex, entry: ModelEntry, params: URLSearchParams, user: User | null): Promise<URLSearchParams> {
  const slugs = params.getAll('filter');
  if (!slugs.length) return params;
  const rows: Row[] = await db(model('SavedFilter').definition.table).whereIn('slug', slugs).where('enabled', true);
  const merged = new URLSearchParams([...params].filter(([k]) => k !== 'filter'));
  for (const slug of slugs) {
    const row = rows.find((r) => r.slug === slug);
    const visible = row && (row.shared === true || row.shared === 1 || (user && Number(row.user_id) === user.id) || user?.isSuperuser);
    if (!row || !visible || !contentTypesOf(row.content_types).includes(entry.definition.contentType)) {
      throw errors.badFilter('filter', `No saved filter '${slug}' applies to ${entry.definition.contentType}.`);
    }
    const parameters = parseJson(row.parameters) as Record<string, unknown> | null;
    for (const [name, value] of Object.entries(parameters ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) merged.append(name, String(v));
    }
  }
  return merged;
}
