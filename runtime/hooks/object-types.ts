/**
 * The `content_types` list several extras models carry (event rules, webhooks, export templates,
 * saved filters, custom links): a JSON list of `app.model` names, checked against the registry, and
 * the `?content_types=dcim.site` filter on it.
 */
import type { Knex } from 'knex';
import type { WriteItem } from '../data/registry.js';
import { byContentType } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';

export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try { return JSON.parse(text); } catch { return undefined; }
}

/** The stored list, as strings ([] when absent or malformed). */
export function contentTypesOf(stored: unknown): string[] {
  const list = parseJson(stored);
  return Array.isArray(list) ? list.map(String) : [];
}

/**
 * Checks the list on a write: one or more known object types, each accepted by `allowed` (for
 * example: its changes are captured). `what` names the kind in the message.
 */
export function checkContentTypes(item: WriteItem, field = 'content_types', allowed: (entry: ModelEntry) => boolean = () => true, what = 'an object type'): void {
  const list = parseJson({ ...(item.existing ?? {}), ...item.values }[field]);
  if (!Array.isArray(list) || !list.length) {
    item.errors.add(field, 'Give a list of one or more object types (app.model).');
    return;
  }
  for (const ct of list) {
    const entry = typeof ct === 'string' ? byContentType.get(ct) : undefined;
    if (!entry || !allowed(entry)) item.errors.add(field, `${JSON.stringify(ct)} is not ${what}.`);
  }
}

/** `?content_types=dcim.site`: rows whose list names that type (repeat for any of several). */
export function contentTypesFilter(field = 'content_types') {
  return (qb: Knex.QueryBuilder, values: string[]) => {
    const like = (v: string) => `%${JSON.stringify(v).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    qb.where((w) => { for (const v of values) w.orWhereRaw("?? like ? escape '\\'", [field, like(v)]); });
  };
}
