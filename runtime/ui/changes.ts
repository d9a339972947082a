/**
 * The change log as pages: `/extras/changelog/` and an object's change-log tab, each change with a
 * before/after table of the fields it changed (read from the API's object-change list).
 */
import type { Context } from 'koa';
import { byContentType } from '../data/registry.js';
import { callView, type ViewFn } from './api-call.js';
import { pageUrl } from './values.js';

export const CHANGE_TYPE = 'extras.objectchange';

function shown(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The fields whose value differs between two snapshots, with both values. */
export function diff(before: Record<string, unknown> | null, after: Record<string, unknown> | null): { field: string; before: string; after: string }[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((k) => k !== 'last_updated');
  // A creation lists the values set, a deletion the values lost: empty ones say nothing.
  const blank = (v: unknown) => v === null || v === undefined || v === '' || (typeof v === 'object' && !Object.keys(v as object).length);
  return keys
    .filter((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]))
    .filter((k) => !(before === null && blank(after?.[k])) && !(after === null && blank(before?.[k])))
    .map((k) => ({ field: k, before: before ? shown(before[k]) : '', after: after ? shown(after[k]) : '' }));
}

const BADGE: Record<string, string> = { create: 'green', update: 'blue', delete: 'red' };

/** Changes matching `filter` (API query parameters), newest first, as the `changes` template's view. */
export async function changesView(ctx: Context, list: ViewFn, filter: URLSearchParams, limit = 50): Promise<{ changes: unknown[]; more: string | null; error?: string }> {
  const query = new URLSearchParams(filter);
  query.set('limit', String(limit));
  const result = await callView(ctx, list, { path: '/extras/changelog/', query });
  if (!result.ok) return { changes: [], more: null, error: JSON.stringify(result.error) };
  const rows = result.body.results as Record<string, any>[];
  return {
    changes: rows.map((c) => {
      const type = byContentType.get(c.changed_object_type);
      const action = c.action?.value ?? c.action;
      return {
        time: String(c.time ?? '').replace('T', ' ').slice(0, 19),
        user: c.user_name || '—',
        action: c.action?.label ?? action,
        badge: BADGE[action] ?? 'secondary',
        object: `${type ? type.definition.verboseName : c.changed_object_type} ${c.object_repr}`,
        objectUrl: type && action !== 'delete' ? `/${type.definition.app}/${type.definition.endpoint}/${c.changed_object_id}/` : pageUrl(c.changed_object?.url),
        diff: diff(c.prechange_data, c.postchange_data),
      };
    }),
    more: result.body.next ? `/extras/changelog/?${new URL(result.body.next).searchParams}` : null,
  };
}
