/** OR conditions over many values without building an expression too deep for SQLite. */
import type { Knex } from 'knex';

/** Values per OR group: SQLite parses a chain of ORs into a tree as deep as the chain (at most 1000). */
const OR_GROUP = 50;

/** ORs `one(value)` over `values`, nested in groups so the expression stays shallow. */
export function orEach<T>(qb: Knex.QueryBuilder, values: T[], one: (w: Knex.QueryBuilder, value: T) => void): void {
  if (values.length <= OR_GROUP) {
    for (const v of values) qb.orWhere((w) => one(w, v));
    return;
  }
  const size = Math.max(OR_GROUP, Math.ceil(values.length / OR_GROUP));
  for (let i = 0; i < values.length; i += size) qb.orWhere((w) => orEach(w, values.slice(i, i + size), one));
}
