/**
 * NetBox 4.6's entity tags: one object's answer carries a weak ETag made from its last change (else
 * its creation), and a PUT, PATCH or DELETE of one object whose `If-Match` names only other tags is
 * refused with 412 before anything is written, so two clients editing the same object cannot
 * overwrite each other unseen. Weak, because the tag follows a timestamp, not the bytes.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { ApiError } from '../core/errors.js';
import type { ModelEntry, Row } from '../core/types.js';
import { isPostgres } from '../data/db.js';
import { requestVersion } from './versions.js';

/** Python's isoformat of a UTC time, as NetBox prints it: microseconds unless zero, `+00:00`. */
function isoformat(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) return null;
  const text = String(value instanceof Date ? value.toISOString() : value);
  // the stored fraction keeps its microseconds (a Date has milliseconds only)
  const fraction = /\.(\d{1,6})/.exec(text)?.[1] ?? String(date.getUTCMilliseconds()).padStart(3, '0');
  const micros = fraction.padEnd(6, '0');
  return `${date.toISOString().slice(0, 19)}${/^0+$/.test(micros) ? '' : `.${micros}`}+00:00`;
}

/** The weak tag of a stored row, or null for a model without timestamps. */
export function etagOf(row: Row): string | null {
  const stamp = isoformat(row.last_updated) ?? isoformat(row.created);
  return stamp ? `W/"${stamp}"` : null;
}

/** Does the request's version use entity tags? */
export function usesEtags(ctx: Context): boolean {
  return !!requestVersion(ctx)?.etags;
}

/** Sets the ETag of one object's answer, in a version that uses them. */
export function sendEtag(ctx: Context, row: Row | undefined): void {
  if (!row || !usesEtags(ctx)) return;
  const tag = etagOf(row);
  if (tag) ctx.set('ETag', tag);
}

/** The tags `If-Match` names; none for `*` or no header. */
function ifMatch(ctx: Context): string[] {
  const header = ctx.get('If-Match');
  if (!header || header.trim() === '*') return [];
  return header.split(',').map((t) => t.trim()).filter(Boolean);
}

/**
 * Refuses a write of one object whose `If-Match` does not name its current tag: 412 with the current
 * tag in `ETag`. Read inside the write's transaction, the row locked on PostgreSQL, so no other
 * write slips in between the check and this one.
 */
export async function checkIfMatch(ctx: Context, trx: Knex, entry: ModelEntry, id: number): Promise<void> {
  const wanted = ifMatch(ctx);
  if (!wanted.length || !usesEtags(ctx) || !entry.definition.timestamps) return;
  const query = trx(entry.definition.table).select('created', 'last_updated').where('id', id).first();
  if (isPostgres(trx)) query.forUpdate();
  const row = await query;
  if (!row) return;
  const current = etagOf(row);
  if (current && !wanted.includes(current)) {
    throw new ApiError(412, { detail: 'The object has changed since the ETag given in If-Match.' }, { ETag: current });
  }
}
