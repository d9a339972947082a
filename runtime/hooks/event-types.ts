/**
 * An event rule's triggers in both shapes: NetBox 3.7's five booleans (type_create ... type_job_end),
 * stored, and NetBox 4.x's `event_types` list, read from them and written into them. NetBox 4.1's
 * conversion gives a job's end as three events (completed, failed, errored): any of them sets
 * type_job_end, and a set type_job_end reads as all three.
 */
import type { Knex } from 'knex';
import type { Row } from '../data/registry.js';

/** Each 4.x event type and the stored boolean it reads from and writes. */
export const EVENT_TYPES: Record<string, string> = {
  object_created: 'type_create',
  object_updated: 'type_update',
  object_deleted: 'type_delete',
  job_started: 'type_job_start',
  job_completed: 'type_job_end',
  job_failed: 'type_job_end',
  job_errored: 'type_job_end',
};

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

/** The 4.x list of a stored row. */
export function eventTypesOf(row: Row): string[] {
  return Object.entries(EVENT_TYPES).filter(([, column]) => truthy(row[column])).map(([type]) => type);
}

/** The stored booleans of a 4.x list, or the problem with it. */
export function booleansOf(value: unknown): Record<string, boolean> | string {
  if (!Array.isArray(value)) return `Expected a list of items but got type "${typeof value}".`;
  const unknown = value.filter((v) => typeof v !== 'string' || !(v in EVENT_TYPES));
  if (unknown.length) return `"${String(unknown[0])}" is not a valid choice.`;
  const set = new Set(value.map((v) => EVENT_TYPES[v as string]));
  return Object.fromEntries([...new Set(Object.values(EVENT_TYPES))].map((column) => [column, set.has(column)]));
}

/** `?event_type=object_created&event_type=job_failed`: rules with any of those events. */
export function eventTypeFilter(qb: Knex.QueryBuilder, values: string[]): void {
  const columns = [...new Set(values.map((v) => EVENT_TYPES[v]).filter(Boolean))];
  if (!columns.length) { qb.whereRaw('1 = 0'); return; }
  qb.where((w) => { for (const c of columns) w.orWhere(c, true); });
}
