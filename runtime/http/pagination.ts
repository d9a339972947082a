/**
 * limit/offset pagination as NetBox does it: PAGINATE_COUNT by default, limits above MAX_PAGE_SIZE
 * capped, limit=0 meaning MAX_PAGE_SIZE (or everything when there is no maximum), and absolute
 * next/previous links that keep every other parameter.
 *
 * In an API version with cursor pagination (NetBox 4.6), `start=<id>` instead: the objects whose id
 * is at least that, ordered by id, `next` carrying `start=<last id + 1>` while a page comes back
 * full, no `previous` and no count. `start` with `offset` or `ordering` is a 400 naming both.
 */
import type { Config } from '../core/config.js';
import { errors } from '../core/errors.js';

export interface Page {
  /** null: no limit */
  limit: number | null;
  offset: number;
  /** cursor pagination: the first id to return; null: offset pagination */
  start: number | null;
  /** cursor pagination's links: `lastId` of a page of `length` rows */
  cursorLinks(base: string, params: URLSearchParams, length: number, lastId: number | null): { next: string | null; previous: null };
  links(base: string, params: URLSearchParams, count: number): { next: string | null; previous: string | null };
}

/** A whole number, or null (anything else falls back to the default, as NetBox does); one too large to count with is a 400. */
function nonNegative(param: string, value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw errors.badFilter(param, `Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`);
  return n;
}

/** `start` when the version has cursor pagination (`cursor`), checked as NetBox checks it. */
function cursorStart(params: URLSearchParams, cursor: boolean): number | null {
  const value = cursor ? params.get('start') : null;
  if (value === null) return null;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw errors.badFilter('start', "Invalid 'start' parameter: must be a non-negative integer.");
  if (params.has('offset')) throw errors.badFilter('start', "'start' and 'offset' are mutually exclusive.");
  if (params.has('ordering')) throw errors.badFilter('ordering', "Ordering cannot be specified in conjunction with cursor-based pagination ('start').");
  return Number(value);
}

/** `cursor`: the request's API version takes `start` (schema/versions.yaml, cursor_pagination). */
export function paginate(params: URLSearchParams, config: Config, cursor = false): Page {
  const start = cursorStart(params, cursor);
  const max = config.maxPageSize;
  const requested = nonNegative('limit', params.get('limit'));
  let limit: number | null;
  if (requested === null) limit = max === null ? config.paginateCount : Math.min(config.paginateCount, max);
  else if (requested === 0) limit = max;
  else limit = max === null ? requested : Math.min(requested, max);
  const offset = nonNegative('offset', params.get('offset')) ?? 0;

  const link = (base: string, params: URLSearchParams, newOffset: number | null) => {
    const next = new URLSearchParams();
    for (const [k, v] of params) if (k !== 'limit' && k !== 'offset') next.append(k, v);
    next.set('limit', String(limit));
    if (newOffset !== null) next.set('offset', String(newOffset));
    return `${base}?${next.toString()}`;
  };

  return {
    limit,
    offset,
    start,
    cursorLinks(base, params, length, lastId) {
      if (limit === null || length < limit || lastId === null) return { next: null, previous: null };
      const next = new URLSearchParams();
      for (const [k, v] of params) if (k !== 'limit' && k !== 'offset' && k !== 'start') next.append(k, v);
      next.set('start', String(lastId + 1));
      next.set('limit', String(limit));
      return { next: `${base}?${next.toString()}`, previous: null };
    },
    links(base, params, count) {
      if (limit === null) return { next: null, previous: null };
      const next = offset + limit < count ? link(base, params, offset + limit) : null;
      let previous: string | null = null;
      if (offset > 0) previous = offset - limit <= 0 ? link(base, params, null) : link(base, params, offset - limit);
      return { next, previous };
    },
  };
}
